import { PayoutAutomationError } from '../../shared/errors.js';
import * as z from '../../shared/zod.js';
import { type AuditEvent, type Controls, PAYOUT_STATUSES, type Payout, PayoutStatus } from '../model.js';
import { keys, TableIndexes, WorkQueue } from './table-design.js';

/**
 * Items read back from DynamoDB are a boundary too: they are parsed, so a hand-edited or half-migrated
 * item fails loudly with the attribute named instead of flowing on as a wrong payout.
 */

const principal = z.object({ id: z.string(), kind: z.enum(['user', 'system']) });
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const beneficiary = z.object({ bankCode: z.string(), accountNumber: z.string(), accountName: z.string() });
const status = z.enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]]);

// The item schemas are built on first use (z.lazy): a cold start that only writes never builds them.
const instruction = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('bank_transfer'), beneficiary }),
    z.object({
      type: z.literal('wallet_transfer'),
      sourceWalletId: z.string(),
      destinationWalletId: z.string(),
    }),
    z.object({ type: z.literal('wallet_credit'), walletId: z.string() }),
    z.object({ type: z.literal('wallet_debit'), walletId: z.string() }),
    z.object({ type: z.literal('child_debit'), childAccountId: z.string() }),
    z.object({ type: z.literal('child_bank_transfer'), childAccountId: z.string(), beneficiary }),
  ]),
);

const PayoutItemSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    idempotencyKey: z.string(),
    origin: z.enum(['api', 'event', 'schedule', 'settlement']),
    requestFingerprint: z.string(),
    instruction,
    amountKobo: z.int(),
    currency: z.literal('NGN'),
    narration: z.string(),
    metadata: z.record(z.string(), scalar),
    status,
    version: z.int(),
    requestedBy: principal,
    approvedBy: z.optional(principal),
    scheduleAt: z.optional(z.string()),
    sourceRef: z.optional(z.string()),
    capKey: z.string(),
    capDay: z.optional(z.string()),
    attempt: z.optional(
      z.object({
        attemptId: z.string(),
        number: z.int(),
        startedAt: z.string(),
        leaseUntil: z.string(),
        providerAttempt: z.optional(z.int()),
      }),
    ),
    submissionCount: z.int(),
    rateLimitedCount: z.optional(z.int()),
    nextActionAt: z.optional(z.string()),
    receipt: z.optional(
      z.object({
        transactionId: z.string(),
        reference: z.optional(z.string()),
        sessionId: z.optional(z.string()),
        status: z.string(),
        chargesKobo: z.int(),
        paidAt: z.optional(z.string()),
      }),
    ),
    failure: z.optional(z.object({ code: z.string(), message: z.string() })),
    watchedAttempts: z.optional(
      z.array(
        z.object({
          number: z.int(),
          startedAt: z.string(),
          capDay: z.optional(z.string()),
          provedAbsentAt: z.string(),
          watchUntil: z.string(),
        }),
      ),
    ),
    watchEndedAt: z.optional(z.string()),
    paidByAttempt: z.optional(z.int()),
    paidTwice: z.optional(z.object({ attempts: z.array(z.int()), transactionIds: z.array(z.string()) })),
    resolutionProposal: z.optional(
      z.object({
        transactionId: z.string(),
        note: z.string(),
        proposedBy: principal,
        proposedAt: z.string(),
        mismatch: z.string(),
      }),
    ),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

const auditEvent = {
  payoutId: z.string(),
  sequence: z.int(),
  at: z.string(),
  actor: principal,
  from: z.nullable(status),
  to: status,
  reason: z.string(),
  details: z.optional(z.record(z.string(), scalar)),
};

const AuditItemSchema = z.lazy(() =>
  z.object({
    ...auditEvent,
    // Later events committed in the same write as the first (the creation already claimed: created, claimed).
    following: z.optional(z.array(z.object(auditEvent))),
  }),
);

const ControlsItemSchema = z.lazy(() =>
  z.object({
    paused: z.boolean(),
    reason: z.optional(z.string()),
    updatedBy: z.optional(principal),
    updatedAt: z.optional(z.string()),
  }),
);

/** Thrown when a stored item does not have the shape the code expects. */
export class CorruptItemError extends PayoutAutomationError {
  override readonly name = 'CorruptItemError';
  override readonly code = 'CORRUPT_ITEM';
}

function parse<T>(schema: z.ZodMiniType<T>, item: Record<string, unknown>, what: string): T {
  const result = schema.safeParse(item);
  if (!result.success) {
    const first = result.error.issues[0];
    throw new CorruptItemError(
      `stored ${what} ${String(item.pk)} is malformed at ${first?.path.join('.')}: ${first?.message}`,
    );
  }
  return result.data;
}

/** The work queue a payout belongs to in its current status, with the instant it becomes due. */
export function workQueueOf(payout: Payout): { queue: string; dueAt: string } | undefined {
  switch (payout.status) {
    case PayoutStatus.Pending:
      return { queue: WorkQueue.Submit, dueAt: payout.nextActionAt ?? payout.createdAt };
    case PayoutStatus.Submitting:
      // In flight: no queue (see WorkQueue); the reconciler finds ended leases through the status listing.
      return undefined;
    case PayoutStatus.Unknown:
      return { queue: WorkQueue.Reconcile, dueAt: payout.nextActionAt ?? payout.updatedAt };
    case PayoutStatus.Scheduled:
      return payout.scheduleAt ? { queue: WorkQueue.Due, dueAt: payout.scheduleAt } : undefined;
    case PayoutStatus.Succeeded:
    case PayoutStatus.Failed:
    case PayoutStatus.Cancelled:
      // Decided, but an earlier attempt may still show up at the provider: the reconciler keeps looking.
      return payout.watchedAttempts?.length && !payout.watchEndedAt
        ? { queue: WorkQueue.Watch, dueAt: payout.nextActionAt ?? payout.updatedAt }
        : undefined;
    default:
      return undefined;
  }
}

/**
 * The stored payout leaves out what it does not need to hold: the id (its key says it), the currency (NGN is the
 * only one) and an empty metadata map. Every write of a payout costs its size per started KB in the table and in
 * each index entry, and a decided payout sits just around 1 KB (docs/data-model.md, "Write cost"); `fromPayoutItem`
 * puts the three back, and reads items that still hold them as they are.
 */
export function toPayoutItem(payout: Payout): Record<string, unknown> {
  const work = workQueueOf(payout);
  const { byStatus, byMonth, workQueue } = TableIndexes;
  const { id, currency: _onlyCurrency, metadata, ...stored } = payout;
  return {
    ...keys.payout(id),
    entity: 'payout',
    ...stored,
    ...(Object.keys(metadata).length > 0 && { metadata }),
    [byStatus.partitionKey]: keys.statusPartition(payout.status),
    [byStatus.sortKey]: `${payout.createdAt}#${id}`,
    [byMonth.partitionKey]: keys.monthPartition(payout.createdAt.slice(0, 7)),
    [byMonth.sortKey]: `${payout.createdAt}#${id}`,
    ...(work && {
      [workQueue.partitionKey]: keys.workPartition(work.queue),
      [workQueue.sortKey]: `${work.dueAt}#${id}`,
    }),
  };
}

const PAYOUT_KEY_PREFIX = keys.payout('').pk;

export function fromPayoutItem(item: Record<string, unknown>): Payout {
  const { pk } = item;
  const omitted = {
    ...(typeof pk === 'string' &&
      pk.startsWith(PAYOUT_KEY_PREFIX) && { id: pk.slice(PAYOUT_KEY_PREFIX.length) }),
    currency: 'NGN',
    metadata: {},
  };
  return parse(PayoutItemSchema, { ...omitted, ...item }, 'payout');
}

/**
 * One audit item for the events of one write, in sequence order, keyed by the first one's sequence. A write
 * that records two decisions (a creation already claimed) stores both in one item: every item of a transaction
 * costs 2 write units per started KB, so a second item would cost 2 more for ~250 bytes.
 */
export function toAuditItem([first, ...following]: readonly [AuditEvent, ...AuditEvent[]]): Record<
  string,
  unknown
> {
  return {
    ...keys.audit(first.payoutId, first.sequence),
    entity: 'audit',
    ...first,
    ...(following[0] && { following }),
  };
}

/** The events an audit item holds, first to last (items written one event each hold one). */
export function fromAuditItem(item: Record<string, unknown>): AuditEvent[] {
  const { following = [], ...first } = parse(AuditItemSchema, item, 'audit event');
  return [first, ...following];
}

export function fromControlsItem(item: Record<string, unknown> | undefined): Controls {
  return item ? parse(ControlsItemSchema, item, 'controls') : { paused: false };
}
