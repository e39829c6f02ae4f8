import { errorKind } from '../shared/errors.js';

/**
 * A change of access the caller may not make: their own groups or their own account, or the confirmation of a
 * change they proposed themselves (compared by stable identity, as four eyes compares approvers). Nothing changed.
 * Apart from the service, so the problem mapping every API function carries holds only these two classes.
 */
export class OperatorChangeForbiddenError extends /* @__PURE__ */ errorKind(
  'OperatorChangeForbiddenError',
  'OPERATOR_CHANGE_FORBIDDEN',
) {}

/** The pool refused a call or could not be reached; the API answers 502 `user-pool-error` with its words. */
export class DirectoryError extends /* @__PURE__ */ errorKind('DirectoryError', 'OPERATOR_DIRECTORY_FAILED') {
  constructor(
    readonly operation: string,
    readonly type: string,
    options?: ErrorOptions,
  ) {
    super(`the user pool refused ${operation}: ${type}`, options);
  }
}
