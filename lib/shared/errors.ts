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
 * names) and its `code` (a literal). A kind with nothing more is one line. The call is marked pure, so esbuild
 * still leaves out of a bundle every kind its code never uses:
 *
 * @example export class PayoutsPausedError extends /* @__PURE__ *\/ errorKind('PayoutsPausedError', 'PAYOUTS_PAUSED') {}
 */
export function errorKind<const C extends string>(name: string, code: C) {
  return class extends PayoutAutomationError {
    override readonly name: string = name;
    override readonly code: C = code;
  };
}

/** A failure's cause, and the message when the kind's own would say less than the feature knows. */
export interface FailureOptions extends ErrorOptions {
  readonly detail?: string;
}

export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** The input of a command broke a rule (amount above the maximum, kobo on a whole-naira endpoint, …). */
export class ValidationError extends /* @__PURE__ */ errorKind('ValidationError', 'VALIDATION') {
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
export class InvalidCursorError extends /* @__PURE__ */ errorKind('InvalidCursorError', 'INVALID_CURSOR') {}

/** No `resource` has this id. */
export class NotFoundError extends /* @__PURE__ */ errorKind('NotFoundError', 'NOT_FOUND') {
  constructor(
    readonly resource: string,
    readonly id: string,
    options: FailureOptions = {},
  ) {
    super(options.detail ?? `${resource} ${id} does not exist`, options);
  }
}

/** The idempotency key was used before with a different request. */
export class IdempotencyConflictError extends /* @__PURE__ */ errorKind(
  'IdempotencyConflictError',
  'IDEMPOTENCY_CONFLICT',
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
export class ConcurrentModificationError extends /* @__PURE__ */ errorKind(
  'ConcurrentModificationError',
  'CONCURRENT_MODIFICATION',
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
export class InvalidTransitionError extends /* @__PURE__ */ errorKind(
  'InvalidTransitionError',
  'INVALID_TRANSITION',
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
