import { type FromEnvInit, fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (`BUNDLE_OPTIONS.alias`): the AWS
 * clients' default credentials are the function role's, which Lambda puts in the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), the first link of the SDK's default chain.
 *
 * Why: the rest of that chain (SSO, shared ini files, credential processes, web identity, the container and
 * instance metadata endpoints, and the STS and SSO clients they need) is never reached in a Lambda, yet bundled
 * it was ~130 KB of every function and ~9 ms of its cold start (`npm run bench`). Code run from source (tests,
 * `npm start`) keeps the SDK's own chain; a bundle run where no credentials are in the environment fails with
 * the SDK's "Unable to find environment variable credentials".
 */
export const defaultProvider = (init?: FromEnvInit) => fromEnv(init);
