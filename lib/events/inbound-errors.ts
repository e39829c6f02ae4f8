import { errorKind } from '../shared/errors.js';

/** An inbound event does not match its schema; it is dead-lettered, never retried, and creates nothing. */
export class InvalidEventError extends /* @__PURE__ */ errorKind('InvalidEventError', 'INVALID_EVENT') {
  constructor(
    readonly eventId: string | undefined,
    readonly issues: readonly { path: string; message: string }[],
    options?: ErrorOptions,
  ) {
    super(
      `invalid event${eventId ? ` ${eventId}` : ''}: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
      options,
    );
  }
}
