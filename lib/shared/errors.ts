/**
 * The project's one error base and the failure kinds every feature shares. Each kind has a `code`, a plain
 * string that survives process boundaries (logs, dead-letter records, the CLI), so a reader on the other side
 * tells the kind by `code` where `instanceof` cannot reach. A feature declares an error of its own only for a
 * failure that is really its own (payouts paused, a refund above the amount paid, …).
 */
export class PayoutAutomationError extends Error {
  override readonly name: string = 'PayoutAutomationError';
  readonly code: string = 'PAYOUT_AUTOMATION_ERROR';
}

/**
 * The one error factory: the base of an error kind, its `name` (said as a string because bundles minify class
 * names) and its `code`. A kind with nothing more is one line:
 *
 * @example export class PayoutsPausedError extends errorKind('PayoutsPausedError', 'PAYOUTS_PAUSED') {}
 */
export function errorKind<const C extends string>(name: string, code: C) {
  return class extends PayoutAutomationError {
    override readonly name: string = name;
    override readonly code: C = code;
  };
}

/** The codes of the shared failure kinds. */
export const FailureCode = {
  Validation: 'VALIDATION',
  InvalidCursor: 'INVALID_CURSOR',
  NotFound: 'NOT_FOUND',
  IdempotencyConflict: 'IDEMPOTENCY_CONFLICT',
  ConcurrentModification: 'CONCURRENT_MODIFICATION',
  InvalidTransition: 'INVALID_TRANSITION',
} as const;

/** A failure's cause, and the message when the kind's own would say less than the feature knows. */
export interface FailureOptions extends ErrorOptions {
  readonly detail?: string;
}

export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** The input of a command broke a rule (amount above the maximum, kobo on a whole-naira endpoint, …). */
export class ValidationError extends errorKind('ValidationError', FailureCode.Validation) {
  constructor(
    message: string,
    readonly issues: readonly FieldIssue[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /** One error for several field issues, its message listing them all. */
  static of(issues: readonly FieldIssue[], options?: ErrorOptions): ValidationError {
    return new ValidationError(
      issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '),
      issues,
      options,
    );
  }
}

/** A list cursor that this API did not produce. */
export class InvalidCursorError extends errorKind('InvalidCursorError', FailureCode.InvalidCursor) {}

/** No `resource` has this id. */
export class NotFoundError extends errorKind('NotFoundError', FailureCode.NotFound) {
  constructor(
    readonly resource: string,
    readonly id: string,
    options: FailureOptions = {},
  ) {
    super(options.detail ?? `${resource} ${id} does not exist`, options);
  }
}

/** The idempotency key was used before with a different request. */
export class IdempotencyConflictError extends errorKind(
  'IdempotencyConflictError',
  FailureCode.IdempotencyConflict,
) {
  constructor(
    readonly resource: string,
    readonly idempotencyKey: string,
    readonly existingId: string,
  ) {
    super(
      `idempotency key "${idempotencyKey}" was already used for ${resource} ${existingId} with a different request`,
    );
  }
}

/** Another writer changed the item between our read and our conditional write; read it again and retry. */
export class ConcurrentModificationError extends errorKind(
  'ConcurrentModificationError',
  FailureCode.ConcurrentModification,
) {
  constructor(
    readonly resource: string,
    readonly id: string,
    options: FailureOptions = {},
  ) {
    super(options.detail ?? `${resource} ${id} changed meanwhile; read it again and retry`, options);
  }
}

/** The item is not in a state that allows the command (cancel after submission, approve twice, …). */
export class InvalidTransitionError extends errorKind(
  'InvalidTransitionError',
  FailureCode.InvalidTransition,
) {
  constructor(
    readonly resource: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(detail, options);
  }
}

/** True when `error` is a concurrent change of `resource`, not of something else met on the way. */
export function isConcurrentModificationOf(
  error: unknown,
  resource: string,
): error is ConcurrentModificationError {
  return error instanceof ConcurrentModificationError && error.resource === resource;
}
