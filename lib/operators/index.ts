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
export type { AccessMarker, OperatorRecords, RecordedWith } from './records.js';
export {
  ALL_ROLES,
  IDENTITY_ENV,
  type IdentitySettings,
  identityEnvOf,
  identitySettingsOf,
  OPERATOR_ROLES,
  type Operator,
  type OperatorRole,
  OperatorRoleSchema,
  rolesGranted,
} from './roles.js';
export { DynamoDbOperatorStore, operatorKeys } from './store/dynamodb-operator-store.js';
