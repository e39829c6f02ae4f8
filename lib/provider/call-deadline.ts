// A module of its own, with no imports, so the runtime's configuration can check a lease against it without
// carrying the connection (undici) into functions that never call the provider.
/**
 * The deadline of one HTTP attempt (connect, send, headers and body: an AbortSignal on the whole attempt), and
 * of one whole call too unless `RequestOptions.deadlineMs` says otherwise (`timeouts.requestMs` sets both): a
 * retry after a connection refused, a 401 refresh or a slow credentials read all fit inside it, so the limits
 * proof (test/infra/handler-limits.test.ts) may count one provider call at this figure.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
