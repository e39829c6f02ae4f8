/** Base of every error the recurrence module raises on purpose. */
export class RecurrenceError extends Error {
  override readonly name: string = 'RecurrenceError';
  readonly code: string = 'RECURRENCE_ERROR';
}

/** The rule or template broke a rule of its own (endDate before startDate, no occurrence left, …). */
export class RecurrenceValidationError extends RecurrenceError {
  override readonly name = 'RecurrenceValidationError';
  override readonly code = 'RECURRENCE_INVALID';
  constructor(
    readonly issues: readonly { path: string; message: string }[],
    options?: ErrorOptions,
  ) {
    super(issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '), options);
  }
}

/** No recurring payout has this id. */
export class RecurrenceNotFoundError extends RecurrenceError {
  override readonly name = 'RecurrenceNotFoundError';
  override readonly code = 'RECURRENCE_NOT_FOUND';
  constructor(
    readonly recurrenceId: string,
    options?: ErrorOptions,
  ) {
    super(`no recurring payout ${recurrenceId}`, options);
  }
}

/** The command does not fit the recurrence's state (resume a cancelled one, skip a paid occurrence, …). */
export class RecurrenceStateError extends RecurrenceError {
  override readonly name = 'RecurrenceStateError';
  override readonly code = 'RECURRENCE_STATE';
}

/** The recurrence changed between read and write; the caller may read again and retry. */
export class RecurrenceConflictError extends RecurrenceError {
  override readonly name = 'RecurrenceConflictError';
  override readonly code = 'RECURRENCE_CONFLICT';
  constructor(
    readonly recurrenceId: string,
    options?: ErrorOptions,
  ) {
    super(`recurring payout ${recurrenceId} changed meanwhile; read it again and retry`, options);
  }
}

/** The idempotency key was used before with a different request. */
export class RecurrenceIdempotencyConflictError extends RecurrenceError {
  override readonly name = 'RecurrenceIdempotencyConflictError';
  override readonly code = 'IDEMPOTENCY_CONFLICT';
  constructor(
    readonly idempotencyKey: string,
    readonly existingId: string,
  ) {
    super(
      `idempotency key "${idempotencyKey}" was already used for recurring payout ${existingId} with a different request`,
    );
  }
}
