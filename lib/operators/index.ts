export { type DisabledOperators, disabledOperatorsOf, operatorAccessKey, poolSubOf } from './access.js';
export { CognitoDirectory } from './cognito-directory.js';
export type { OperatorDirectory } from './directory.js';
export { DirectoryError, OperatorChangeForbiddenError } from './errors.js';
export * from './model.js';
export {
  type OperatorChangeResult,
  type OperatorDetail,
  OperatorService,
} from './operator-service.js';
export { type AccessMarker, OperatorStore, operatorKeys } from './operator-store.js';
