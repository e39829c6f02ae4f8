/**
 * One error hierarchy for every failure of a provider call. Each class has a stable `code` (it survives
 * process boundaries where `instanceof` does not) and says what is known about the effect of the request.
 * No error ever carries the bearer token or the PIN: messages lose credentials (whole tokens and labelled values only, lib/provider/redact.ts) and `cause` is rebuilt.
 */

/** HTTP methods the provider uses. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH';

/** Where a request was when it failed, as far as the client can know. */
export type RequestContext = { method?: HttpMethod; path?: string; attempts?: number };

export type ProviderErrorOptions = RequestContext & { cause?: unknown };

/** Base class of every provider error. Catch this to catch them all. */
export class ProviderError extends Error {
  override readonly name: string = 'ProviderError';
  readonly code: string = 'PROVIDER_ERROR';
  readonly method: HttpMethod | undefined;
  readonly path: string | undefined;
  /** How many HTTP attempts were made before giving up (0 when none was made). */
  readonly attempts: number;

  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.method = options.method;
    this.path = options.path;
    this.attempts = options.attempts ?? 0;
  }
}

/** `<what> (<reason> <status>): <detail>`, the message of the two errors that give a reason. */
function withReason(what: string, reason: string, options: { status?: number; detail?: string }): string {
  const status = options.status ? ` ${options.status}` : '';
  return `${what} (${reason}${status})${options.detail ? `: ${options.detail}` : ''}`;
}

/** Why the provider refused a request; derived from the HTTP status. */
export const RejectionKind = {
  BadRequest: 'bad-request',
  Unauthorized: 'unauthorized',
  Forbidden: 'forbidden',
  NotFound: 'not-found',
  Unprocessable: 'unprocessable',
  Other: 'other',
} as const;
export type RejectionKind = (typeof RejectionKind)[keyof typeof RejectionKind];

/** Maps a 4xx status to its rejection kind. */
export function rejectionKindOf(status: number): RejectionKind {
  switch (status) {
    case 400:
      return RejectionKind.BadRequest;
    case 401:
      return RejectionKind.Unauthorized;
    case 403:
      return RejectionKind.Forbidden;
    case 404:
      return RejectionKind.NotFound;
    case 422:
      return RejectionKind.Unprocessable;
    default:
      return RejectionKind.Other;
  }
}

/**
 * The provider answered 4xx (not 429): it refused the request and changed nothing.
 * Retrying the same request gives the same answer.
 */
export class ProviderRejectedError extends ProviderError {
  override readonly name: string = 'ProviderRejectedError';
  override readonly code: string = 'PROVIDER_REJECTED';
  readonly status: number;
  readonly kind: RejectionKind;
  /** The provider's `message`, if its error body had one. */
  readonly providerMessage: string | undefined;

  constructor(status: number, providerMessage: string | undefined, options: ProviderErrorOptions = {}) {
    const where = options.method && options.path ? ` to ${options.method} ${options.path}` : '';
    super(
      `provider rejected the request${where} with ${status}${providerMessage ? `: ${providerMessage}` : ''}`,
      options,
    );
    this.status = status;
    this.kind = rejectionKindOf(status);
    this.providerMessage = providerMessage;
  }
}

/** Why a request is known not to have been processed. */
export const UnavailableReason = {
  ConnectRefused: 'connect-refused',
  ConnectTimeout: 'connect-timeout',
  RateLimited: 'rate-limited',
  ServerError: 'server-error',
  Timeout: 'timeout',
  Network: 'network',
  Aborted: 'aborted',
  /** The token or PIN could not be read (Secrets Manager, or a function that holds no PIN). */
  Credentials: 'credentials',
} as const;
export type UnavailableReason = (typeof UnavailableReason)[keyof typeof UnavailableReason];

/**
 * Nothing was done: the request never reached the provider (connection refused, connect timeout), was
 * rate limited (429), or was a read that kept failing after its retries. Safe to retry later.
 */
export class ProviderUnavailableError extends ProviderError {
  override readonly name: string = 'ProviderUnavailableError';
  override readonly code: string = 'PROVIDER_UNAVAILABLE';
  readonly reason: UnavailableReason;
  /** HTTP status, when the provider answered (429, 5xx on a read). */
  readonly status: number | undefined;
  /** From `Retry-After` on a 429, in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(
    reason: UnavailableReason,
    options: ProviderErrorOptions & { status?: number; retryAfterMs?: number; detail?: string } = {},
  ) {
    super(withReason('provider unavailable', reason, options), options);
    this.reason = reason;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Why the effect of a money-moving request is unknown. */
export const OutcomeUnknownReason = {
  Timeout: 'timeout',
  Reset: 'reset',
  ServerError: 'server-error',
  Aborted: 'aborted',
  Network: 'network',
} as const;
export type OutcomeUnknownReason = (typeof OutcomeUnknownReason)[keyof typeof OutcomeUnknownReason];

/**
 * A POST/PATCH was (or may have been) sent and then failed: timeout, reset or 5xx. The provider may have
 * acted. Never retry blindly: reconcile first (e.g. find the operation by its narration).
 */
export class ProviderOutcomeUnknownError extends ProviderError {
  override readonly name: string = 'ProviderOutcomeUnknownError';
  override readonly code: string = 'PROVIDER_OUTCOME_UNKNOWN';
  readonly reason: OutcomeUnknownReason;
  readonly status: number | undefined;

  constructor(
    reason: OutcomeUnknownReason,
    options: ProviderErrorOptions & { status?: number; detail?: string } = {},
  ) {
    super(withReason('outcome of the request unknown', reason, options), options);
    this.reason = reason;
    this.status = options.status;
  }
}

/** One schema mismatch, with its path in the response body. */
export type ResponseIssue = { path: string; message: string };

/**
 * The provider answered 200 but the body does not match the interface. On a POST/PATCH the provider most
 * likely acted: treat it like an unknown outcome and reconcile, never retry.
 */
export class ProviderMalformedResponseError extends ProviderError {
  override readonly name: string = 'ProviderMalformedResponseError';
  override readonly code: string = 'PROVIDER_MALFORMED_RESPONSE';
  readonly issues: readonly ResponseIssue[];
  readonly status: number | undefined;

  constructor(issues: readonly ResponseIssue[], options: ProviderErrorOptions & { status?: number } = {}) {
    const first = issues.slice(0, 5).map((issue) => `${issue.path}: ${issue.message}`);
    const more = issues.length > 5 ? ` (+${issues.length - 5} more)` : '';
    super(`malformed provider response: ${first.join('; ')}${more}`, options);
    this.issues = issues;
    this.status = options.status;
  }
}

/** The parameters were refused by the client before anything was sent (e.g. a fractional whole-naira amount). */
export class ProviderInvalidRequestError extends ProviderError {
  override readonly name: string = 'ProviderInvalidRequestError';
  override readonly code: string = 'PROVIDER_INVALID_REQUEST';
}
