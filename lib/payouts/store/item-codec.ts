import { errorKind } from '../../shared/errors.js';
import {
  storedPrincipal as principal,
  storedApproval,
  storedRejection,
} from '../../shared/stored-principal.js';
import * as z from '../../shared/zod.js';
import { keys, TableIndexes, WorkQueue } from '../../table/index.js';
import {
  type AuditEvent,
  type Controls,
  PAYOUT_STATUSES,
  type Payout,
  PayoutOrigin,
  PayoutStatus,
} from '../model.js';
import { fromStoredNames, storedNameOf, toStoredNames } from './compact-names.js';

/**
 * Items read back from DynamoDB are a boundary too: they are parsed, so a hand-edited or half-migrated
 * item fails loudly with the attribute named instead of flowing on as a wrong payout.
 */

const scalar = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null()]));
const beneficiary = z.lazy(() =>
  z.object({ bankCode: z.string(), accountNumber: z.string(), accountName: z.string() }),
);
const status = z.lazy(() => z.enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]]));

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
    origin: z.enum(Object.values(PayoutOrigin)),
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
    firstApproval: z.optional(storedApproval),
    rejection: z.optional(storedRejection),
    scheduleAt: z.optional(z.string()),
    sourceRef: z.optional(z.string()),
    correlationId: z.optional(z.string()),
    traceparent: z.optional(z.string()),
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
          shownRecords: z.optional(z.string()),
        }),
      ),
    ),
    watchEndedAt: z.optional(z.string()),
    paidByAttempt: z.optional(z.int()),
    paidTwice: z.optional(z.object({ attempts: z.array(z.int()), transactionIds: z.array(z.string()) })),
    resolutionProposal: z.optional(
      z.object({
        outcome: z.optional(z.enum(['succeeded', 'failed', 'paid_twice_recovered'])),
        transactionId: z.optional(z.string()),
        recoveryReference: z.optional(z.string()),
        forced: z.optional(z.boolean()),
        note: z.string(),
        proposedBy: principal,
        proposedAt: z.string(),
        mismatch: z.optional(z.string()),
      }),
    ),
    recovery: z.optional(
      z.object({
        recoveryReference: z.string(),
        transactionIds: z.array(z.string()),
        proposedBy: principal,
        confirmedBy: principal,
        at: z.string(),
      }),
    ),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

const auditEvent = () => ({
  payoutId: z.string(),
  sequence: z.int(),
  at: z.string(),
  actor: principal,
  from: z.nullable(status),
  to: status,
  reason: z.string(),
  details: z.optional(z.record(z.string(), scalar)),
});

const AuditEventSchema = z.lazy(() => z.object(auditEvent()));

const AuditItemSchema = z.lazy(() =>
  z.object({
    ...auditEvent(),
    // Later events committed in the same write as the first (the creation already claimed: created, claimed).
    following: z.optional(z.array(z.object(auditEvent()))),
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
export class CorruptItemError extends /* @__PURE__ */ errorKind('CorruptItemError', 'CORRUPT_ITEM') {}

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

/** An audit event as an item carries it (`toStoredEvent`). */
export type StoredEvent = Readonly<Record<string, unknown>>;

/** The audit events a payout item carries (see `toPayoutItem`), and how many of its first events its key item holds. */
export interface CarriedAudit {
  /** Events stored on the payout item itself, oldest first, as stored. */
  readonly events: readonly StoredEvent[];
  /** The creation's events (sequence 1 to this) are on the payout's idempotency key item. */
  readonly onKeyItem: number;
  /**
   * Some of its events moved to audit items. Without it, a payout whose creation's events are on its key item
   * has no audit item, and a reader of its trail need not look for one.
   */
  readonly moved?: boolean;
}

const NO_CARRIED_AUDIT: CarriedAudit = { events: [], onKeyItem: 0 };

/**
 * A payout as stored: attribute names shortened (`compact-names.ts`), without what it does not need to hold (the
 * id, which its key says; the currency, NGN being the only one; an empty metadata map), and with the audit events
 * it carries (`ev`, and `ke`: how many of the creation's events the idempotency key item holds). Every write of a
 * payout costs its size per started KB in the table and in each index entry, and a decided payout with its
 * outcome's event stays under 1 KB this way (docs/data-model.md, "Write cost"). `fromPayoutItem` reads these and
 * items written before in long names alike.
 */
export function toPayoutItem(
  payout: Payout,
  audit: CarriedAudit = NO_CARRIED_AUDIT,
): Record<string, unknown> {
  const work = workQueueOf(payout);
  const { byStatus, byMonth, workQueue } = TableIndexes;
  const { id, currency: _onlyCurrency, metadata, status, version, ...stored } = payout;
  return {
    ...keys.payout(id),
    entity: 'payout',
    status,
    version,
    ...toStoredNames({ ...stored, ...(Object.keys(metadata).length > 0 && { metadata }) }),
    ...(audit.events.length > 0 && { ev: audit.events }),
    ...(audit.onKeyItem > 0 && { ke: audit.onKeyItem }),
    ...(audit.moved && { mv: true }),
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

function payoutIdOf(item: Record<string, unknown>): string | undefined {
  const { pk } = item;
  return typeof pk === 'string' && pk.startsWith(PAYOUT_KEY_PREFIX)
    ? pk.slice(PAYOUT_KEY_PREFIX.length)
    : undefined;
}

/** Items written before the stored names hold `amountKobo`, which every payout has. */
function isLongNamed(item: Record<string, unknown>): boolean {
  return 'amountKobo' in item;
}

export function fromPayoutItem(item: Record<string, unknown>): Payout {
  const { ev: _carried, ke: _onKeyItem, mv: _moved, ...rest } = item;
  const id = payoutIdOf(item);
  const omitted = { ...(id !== undefined && { id }), currency: 'NGN', metadata: {} };
  // `status` and `version` keep their names in both shapes (no stored name maps back to them).
  const named = isLongNamed(rest) ? rest : fromStoredNames(rest);
  return parse(PayoutItemSchema, { ...omitted, ...named }, 'payout');
}

/** The audit events a stored payout item carries, as stored (none for items written before events rode on it). */
export function carriedAuditOf(item: Record<string, unknown>): CarriedAudit {
  return {
    events: Array.isArray(item.ev) ? (item.ev as StoredEvent[]) : [],
    onKeyItem: typeof item.ke === 'number' ? item.ke : 0,
    ...(item.mv === true && { moved: true }),
  };
}

/** An audit event as a payout or key item carries it: stored names, without the payout id (the item says it). */
export function toStoredEvent(event: AuditEvent): StoredEvent {
  const { payoutId: _itemSays, from, ...rest } = event;
  return toStoredNames({ ...rest, ...(from !== null && { from }) });
}

/** Events carried by an item (`toStoredEvent`), oldest first. */
export function eventsOf(stored: readonly unknown[], payoutId: string, what: string): AuditEvent[] {
  return stored.map((entry) =>
    parse(
      AuditEventSchema,
      { payoutId, from: null, ...fromStoredNames(entry as Record<string, unknown>) },
      `${what} audit event`,
    ),
  );
}

/**
 * An audit item: events a write moved off the payout item because they no longer fitted under 1 KB with it,
 * keyed by the first one's sequence. Items written before hold one write's events each in long names (a
 * creation already claimed: created, claimed, the second in `following`); `fromAuditItem` reads both.
 */
export function toAuditItem(
  payoutId: string,
  events: readonly [StoredEvent, ...StoredEvent[]],
): Record<string, unknown> {
  return {
    ...keys.audit(payoutId, Number(events[0][storedNameOf('sequence')])),
    entity: 'audit',
    ev: events,
  };
}

/** The events an audit item holds, first to last. */
export function fromAuditItem(item: Record<string, unknown>): AuditEvent[] {
  if (Array.isArray(item.ev)) return eventsOf(item.ev, payoutIdOf(item) ?? '', 'audit item');
  const { following = [], ...first } = parse(AuditItemSchema, item, 'audit event');
  return [first, ...following];
}

export function fromControlsItem(item: Record<string, unknown> | undefined): Controls {
  return item ? parse(ControlsItemSchema, item, 'controls') : { paused: false };
}
