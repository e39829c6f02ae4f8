/**
 * Every problem type the ops API (and the local server in front of it) can answer, with the HTTP statuses it
 * comes with and what it means. Nothing builds a problem outside this list (`problem.ts` and `ApiError` take a
 * `ProblemSlug`), and the OpenAPI document lists it, so a new kind of error is documented or does not compile.
 */
export const PROBLEM_TYPES = {
  validation: {
    statuses: [400],
    meaning:
      'The request is invalid: `errors` names each field (body, query, path or header) and why. Nothing changed.',
  },
  unauthenticated: {
    statuses: [401],
    meaning:
      'No IAM principal (in AWS: not signed with SigV4), or locally no valid ID token (`payouts login`). Nothing changed.',
  },
  forbidden: {
    statuses: [403],
    meaning:
      'The caller does not hold the role this route needs (viewer, requester, approver or admin: `detail` names it). Nothing changed.',
  },
  'approval-forbidden': {
    statuses: [403],
    meaning:
      'The caller may not approve or confirm this: they requested it themselves (four eyes), by stable identity; they gave its first of two approvals already; or its amount is above their approval limit (`detail` names it). Nothing changed.',
  },
  'operator-change-forbidden': {
    statuses: [403],
    meaning:
      'An admin may not change their own groups or account (disable, enable), nor confirm a change of access they proposed: another admin must, compared by stable identity. Nothing changed.',
  },
  'not-found': {
    statuses: [404],
    meaning: 'No resource has this id (a malformed id cannot exist either), or no route serves this path.',
  },
  'method-not-allowed': {
    statuses: [405],
    meaning: 'The path exists but not with this method; the `Allow` header lists the methods it has.',
  },
  'idempotency-conflict': {
    statuses: [409],
    meaning: 'The Idempotency-Key was used before with a different request. Nothing changed.',
  },
  'invalid-transition': {
    statuses: [409],
    meaning:
      'The resource is not in a state that allows this command (e.g. cancelling a payout already sent). Nothing changed.',
  },
  'duplicates-unacknowledged': {
    statuses: [409],
    meaning:
      'A payout run has lines paying the same account the same amount, or repeats an earlier run of the same rows: `errors` lists each; send it again with `acknowledgeDuplicates: true` (or `?acknowledgeDuplicates=true`) if that is meant. Nothing stored.',
  },
  'concurrent-modification': {
    statuses: [409],
    meaning: 'The resource changed while the command ran; read it again and retry. Nothing changed.',
  },
  'payouts-paused': {
    statuses: [409],
    meaning: 'Payouts are paused (`POST /controls/pause`): nothing was sent or recorded.',
  },
  'daily-cap-exceeded': {
    statuses: [409],
    meaning:
      "The amount at stake would take the day's total of the main wallet past the daily cap (`DAILY_CAP_KOBO`; a bulk correction): nothing was sent or reserved.",
  },
  'resolution-mismatch': {
    statuses: [409],
    meaning:
      'The named provider record does not prove the payout was paid (see the detail); `force: true` proposes it anyway.',
  },
  'refund-refused': {
    statuses: [422],
    meaning:
      'The refund is not allowed: unknown or unpaid transaction, or refunds would exceed what was paid. Nothing stored or sent.',
  },
  'provider-rejected': {
    statuses: [404, 422],
    meaning:
      'The provider refused the request with its own message (404 when it does not know the item); nothing changed there.',
  },
  'provider-error': {
    statuses: [502],
    meaning: 'The provider answered something unexpected, or refused a read.',
  },
  'outcome-unknown': {
    statuses: [502],
    meaning:
      'The request was sent but the provider did not answer: it may have been applied. Check before sending it again.',
  },
  'provider-unavailable': {
    statuses: [503],
    meaning: 'The provider could not be reached; nothing was sent. Try again later.',
  },
  'user-pool-error': {
    statuses: [502],
    meaning:
      "The operators user pool refused the call or failed (`detail` names the call and its error). What was done before it is in the operator's audit (`GET /operators/{username}`); a change that gives access is recorded only once the pool applied it.",
  },
  'not-configured': {
    statuses: [503],
    meaning:
      'This deployment lacks what the route needs (no instant-settlement policy; no submission queue for correction jobs), so it is off. Nothing stored.',
  },
  'not-enqueued': {
    statuses: [503],
    meaning:
      'The correction job is stored but the queue did not take all of its rows yet; the every-minute sweeper hands them over (retrying with a growing wait), or `POST /bulk-correction-jobs/{id}/requeue` does at once (nothing is sent twice).',
  },
  'request-deadline': {
    statuses: [503],
    meaning:
      'No answer before the deadline (the request may have completed): retry with the same Idempotency-Key.',
  },
  internal: {
    statuses: [500],
    meaning: 'Something behind the API failed; the detail says nothing of it and it is logged in full.',
  },
  'non-loopback-host': {
    statuses: [421],
    meaning:
      'Local server only (npm start): the Host header is not 127.0.0.1, localhost or [::1] with its port.',
  },
  'cross-site-request': {
    statuses: [403],
    meaning: 'Local server only: the request came from a web page elsewhere (Origin or Sec-Fetch-Site).',
  },
  'unsupported-media-type': {
    statuses: [415],
    meaning:
      'Local server only: a command (any method but GET) without Content-Type application/json (text/csv for the CSV upload).',
  },
  'payload-too-large': {
    statuses: [413],
    meaning: 'Local server only: the body is larger than 1 MB (API Gateway refuses above 10 MB).',
  },
} as const satisfies Record<string, { readonly statuses: readonly number[]; readonly meaning: string }>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;
/** The statuses a problem type may come with. */
export type ProblemStatus<S extends ProblemSlug> = (typeof PROBLEM_TYPES)[S]['statuses'][number];

/** Problem types are URNs: stable identifiers that do not pretend to be documentation pages. */
export const problemType = (slug: ProblemSlug): string => `urn:payout-automation:problem:${slug}`;

/** Problem types only the local server (`npm start`) answers, before a request reaches the router. */
export const LOCAL_SERVER_PROBLEMS = [
  'non-loopback-host',
  'cross-site-request',
  'unsupported-media-type',
  'payload-too-large',
] as const satisfies readonly ProblemSlug[];

// Pure: a bundle that never lists the problem types (every function but the one serving the OpenAPI document)
// leaves the table of meanings out (test/infra/bundles.test.ts weighs them).
export const PROBLEM_SLUGS = /* @__PURE__ */ Object.keys(PROBLEM_TYPES) as ProblemSlug[];

/** What any command can answer: a body or parameter the API refuses, a caller it does not know. */
export const COMMAND_PROBLEMS = ['validation', 'unauthenticated'] as const;
/** What a command on a stored instruction can answer besides: none such, not in that state, changed meanwhile. */
export const CHANGE_PROBLEMS = [
  ...COMMAND_PROBLEMS,
  'not-found',
  'invalid-transition',
  'concurrent-modification',
] as const;
/** What a second person's decision (approve, reject) can answer besides: they are the first (four eyes). */
export const DECISION_PROBLEMS = [...CHANGE_PROBLEMS, 'approval-forbidden'] as const;
