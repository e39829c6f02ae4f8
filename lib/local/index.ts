/** The local room's front door: what other rooms may use of it. */
export { CognitoCallError, cognitoCall } from './cognito-api.js';
export { LOCAL_SIGN_IN_PATH } from './gateway-authorizer.js';
