/**
 * Short stored names for a payout's attributes and its audit events (docs/data-model.md, "Stored names").
 *
 * Every write of a payout costs one unit per started KB in the table and in each `ALL` index entry, and a decided
 * payout with its outcome's audit event on it has to stay under 1 KB for the outcome to be one plain write
 * (1 unit) instead of a transaction with an audit item (4). Attribute names are a third of a payout's bytes, so
 * the stored item uses these. The index keys, `entity`, and the top-level `status` and `version` (which
 * conditions, the stream reader and the indexes name) keep their names. Maps whose keys are the client's
 * (`metadata`, an event's `details`) are stored as they are.
 */
export const STORED_NAMES: Readonly<Record<string, string>> = {
  // payout
  idempotencyKey: 'ik',
  origin: 'og',
  requestFingerprint: 'fp',
  instruction: 'in',
  amountKobo: 'am',
  narration: 'nr',
  metadata: 'md',
  requestedBy: 'rb',
  approvedBy: 'ab',
  firstApproval: 'fa',
  rejection: 'rj',
  scheduleAt: 'sa',
  sourceRef: 'sr',
  correlationId: 'ci',
  traceparent: 'tp',
  capKey: 'ck',
  capDay: 'cd',
  attempt: 'at',
  submissionCount: 'sc',
  rateLimitedCount: 'rl',
  nextActionAt: 'nx',
  receipt: 'rc',
  failure: 'fl',
  watchedAttempts: 'wa',
  watchEndedAt: 'we',
  paidByAttempt: 'pb',
  paidTwice: 'pt',
  resolutionProposal: 'rp',
  recovery: 'rv',
  createdAt: 'ca',
  updatedAt: 'ua',
  // principal
  id: 'i',
  kind: 'k',
  // instruction
  type: 't',
  beneficiary: 'b',
  bankCode: 'bc',
  accountNumber: 'an',
  accountName: 'nm',
  sourceWalletId: 'sw',
  destinationWalletId: 'dw',
  walletId: 'wl',
  childAccountId: 'ch',
  // attempt, watched attempts
  attemptId: 'ai',
  number: 'n',
  startedAt: 's',
  leaseUntil: 'l',
  providerAttempt: 'pa',
  provedAbsentAt: 'pv',
  watchUntil: 'wu',
  shownRecords: 'sh',
  // receipt, failure, paid twice, resolution proposal
  transactionId: 'tx',
  reference: 'rf',
  sessionId: 'si',
  status: 'st',
  chargesKobo: 'cg',
  paidAt: 'pd',
  code: 'c',
  message: 'm',
  attempts: 'as',
  transactionIds: 'ts',
  note: 'no',
  proposedBy: 'pr',
  proposedAt: 'pp',
  mismatch: 'mm',
  outcome: 'oc',
  recoveryReference: 'rr',
  forced: 'fo',
  confirmedBy: 'cb',
  // audit event
  sequence: 'q',
  at: 'wh',
  actor: 'by',
  from: 'f',
  to: 'o',
  reason: 'r',
  details: 'd',
};

// Maps, not objects, for the lookups: a stored name like `constructor` must not find Object.prototype's.
const LONG_TO_SHORT: ReadonlyMap<string, string> = new Map(Object.entries(STORED_NAMES));
const SHORT_TO_LONG: ReadonlyMap<string, string> = new Map(
  Object.entries(STORED_NAMES).map(([long, short]) => [short, long]),
);

/** Maps whose keys are the client's or free-form: stored as they are, under their short name. */
const OPAQUE = new Set(['metadata', 'details']);

type Plain = Readonly<Record<string, unknown>>;

function rename(
  value: unknown,
  names: ReadonlyMap<string, string>,
  longOf: (name: string) => string,
): unknown {
  if (Array.isArray(value)) return value.map((element) => rename(element, names, longOf));
  if (value === null || typeof value !== 'object') return value;
  const renamed: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    if (inner === undefined) continue;
    renamed[names.get(name) ?? name] = OPAQUE.has(longOf(name)) ? inner : rename(inner, names, longOf);
  }
  return renamed;
}

/** The stored name of an attribute. */
export function storedNameOf(name: string): string {
  return LONG_TO_SHORT.get(name) ?? name;
}

/** `value`'s attributes under their stored names, at every depth (the client's maps as they are). */
export function toStoredNames(value: Plain): Record<string, unknown> {
  return rename(value, LONG_TO_SHORT, (name) => name) as Record<string, unknown>;
}

/** The inverse of `toStoredNames`. */
export function fromStoredNames(value: Plain): Record<string, unknown> {
  return rename(value, SHORT_TO_LONG, (name) => SHORT_TO_LONG.get(name) ?? name) as Record<string, unknown>;
}
