import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DailyCapExceededError, PayoutsPausedError } from '../../controls/index.js';
import { pauseCheckItem, reserveOnCapShards, type TransactItem } from '../../payouts/index.js';
import { DocumentClient, QueryCommand, TransactWriteCommand } from '../../shared/document-client.js';
import { ConcurrentModificationError } from '../../shared/errors.js';
import { createWithIdempotencyKey, IdempotentCreateGuardError } from '../../shared/idempotent-create.js';
import { type Listing, listingAttributes, queryListing } from '../../shared/index-listing.js';
import { readItemCollection } from '../../shared/item-collection.js';
import type { CursorPage } from '../../shared/paging.js';
import {
  storedPrincipal as principalSchema,
  storedApproval,
  storedRejection,
} from '../../shared/stored-principal.js';
import { dueWorkQuery, readItem } from '../../shared/table-reads.js';
import { commitRetryingConflicts } from '../../shared/transaction-conflicts.js';
import * as z from '../../shared/zod.js';
import { TableIndexes } from '../../table/index.js';
import { acceptedRefundItem } from '../accepted-refund-item.js';
import { RefundExceedsAmountPaidError } from '../errors.js';
import { type Refund, type RefundAuditEvent, RefundStatus, refundWorkDueAt } from '../model.js';
import type { CreateRefundOutcome, RefundChange, RefundStore } from '../refund-store.js';

// The schemas below are built on first use (z.lazy), not when a function loads this module: a cold start that never
// reads these items does not pay for them (docs/cold-start.md).

/** Keys of refund items in the project's single table (see lib/table/table-design.ts). */
export const refundKeys = {
  refund: (id: string) => ({ pk: `REFUND#${id}`, sk: 'REFUND' }),
  audit: (id: string, sequence: number) => ({
    pk: `REFUND#${id}`,
    sk: `AUDIT#${String(sequence).padStart(6, '0')}`,
  }),
  idempotency: (key: string) => ({ pk: `IDEMPOTENCY#refund#${key}`, sk: 'IDEMPOTENCY' }),
  /** The running total of our refunds of one provider transaction, never above what was paid on it. */
  refundedTotal: (transactionId: string) => ({ pk: `REFUNDED#${transactionId}`, sk: 'REFUNDED' }),
  /** The work queue (gsi3) of refunds the sweeper must still send or settle. */
  workPartition: 'WORK#refund',
} as const;

/** Refunds by status and all, newest first (`GET /refunds`). */
const refundListing: Listing = {
  statePartition: (status) => `REFUND#STATUS#${status}`,
  allPartition: 'REFUND#ALL',
};

/** The stored item; refunds not yet settled also sit in the work queue, due when the sweeper should look. */
function toRefundItem(refund: Refund): Record<string, unknown> {
  const dueAt = refundWorkDueAt(refund);
  const { partitionKey, sortKey } = TableIndexes.workQueue;
  return {
    ...refundKeys.refund(refund.id),
    entity: 'refund',
    ...refund,
    ...listingAttributes(refundListing, refund.status, refund.createdAt, refund.id),
    ...(dueAt && { [partitionKey]: refundKeys.workPartition, [sortKey]: `${dueAt}#${refund.id}` }),
  };
}

function toAuditItem(event: RefundAuditEvent): Record<string, unknown> {
  return { ...refundKeys.audit(event.refundId, event.sequence), entity: 'refundAudit', ...event };
}

const statusSchema = z.lazy(() => z.enum(Object.values(RefundStatus)));

const resolutionProposalSchema = z.lazy(() =>
  z.discriminatedUnion('outcome', [
    z.object({
      outcome: z.literal('not_sent'),
      note: z.string(),
      proposedBy: principalSchema,
      proposedAt: z.string(),
    }),
    z.object({
      outcome: z.literal('accepted'),
      providerRefundId: z.string(),
      note: z.string(),
      proposedBy: principalSchema,
      proposedAt: z.string(),
    }),
  ]),
);

/** The stored item, checked on every read: a corrupt item fails loudly rather than flowing on. */
const refundItemSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    idempotencyKey: z.string(),
    requestFingerprint: z.string(),
    transactionId: z.string(),
    amountKobo: z.int(),
    customerNote: z.string(),
    merchantNote: z.string(),
    status: statusSchema,
    version: z.int(),
    requestedBy: principalSchema,
    approvedBy: z.optional(principalSchema),
    firstApproval: z.optional(storedApproval),
    rejection: z.optional(storedRejection),
    amountPaidKobo: z.optional(z.int()),
    countsInTotal: z.optional(z.boolean()),
    capDay: z.optional(z.string()),
    providerRefundId: z.optional(z.string()),
    providerStatus: z.optional(z.string()),
    failure: z.optional(z.object({ code: z.string(), message: z.string() })),
    sendAttempts: z.optional(z.int().check(z.nonnegative())),
    claimId: z.optional(z.string()),
    resolutionProposal: z.optional(resolutionProposalSchema),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

const auditItemSchema = z.lazy(() =>
  z.object({
    refundId: z.string(),
    sequence: z.int(),
    at: z.string(),
    actor: principalSchema,
    from: z.optional(statusSchema),
    to: statusSchema,
    reason: z.string(),
  }),
);

/**
 * Refunds in the project's table (the RefundStore port, refund-store.ts): a conditional create with its idempotency key, its first audit event and its share of the
 * transaction's refunded total; then version-guarded changes, each with its audit event and the control items
 * (pause, daily cap, refunded total) it needs, in one TransactWriteItems.
 */
export class DynamoDbRefundStore implements RefundStore {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  /**
   * Writes refund, idempotency key and audit event in one transaction, with the refund's amount added to the
   * transaction's refunded total when it counts (`countsInTotal`), or returns the refund that holds the key.
   *
   * @throws RefundExceedsAmountPaidError when the total would pass `refund.amountPaidKobo`
   */
  async create(refund: Refund, audit?: RefundAuditEvent): Promise<CreateRefundOutcome> {
    const reserve = refund.countsInTotal ? this.#totalUpdate(refund, refund.amountKobo) : undefined;
    try {
      const outcome = await createWithIdempotencyKey(this.#doc, {
        tableName: this.tableName,
        key: refundKeys.idempotency(refund.idempotencyKey),
        ownerAttribute: 'refundId',
        ownerId: refund.id,
        createdAt: refund.createdAt,
        items: [toRefundItem(refund), ...(audit ? [toAuditItem(audit)] : [])],
        ...(reserve && { guards: [reserve] }),
      });
      if (outcome.created) return { created: true, refund };
      const existing = await this.get(outcome.ownerId);
      if (!existing) throw new ConcurrentModificationError('refund', refund.id);
      return { created: false, existing };
    } catch (error) {
      if (!(error instanceof IdempotentCreateGuardError)) throw error;
      throw await this.#exceeded(refund, error);
    }
  }

  async get(id: string): Promise<Refund | undefined> {
    const item = await readItem(this.#doc, this.tableName, refundKeys.refund(id));
    return item ? refundItemSchema.parse(item) : undefined;
  }

  /** The refund that holds an idempotency key, if any. */
  async findByIdempotencyKey(key: string): Promise<Refund | undefined> {
    const item = await readItem(this.#doc, this.tableName, refundKeys.idempotency(key));
    const owner = item?.refundId;
    return typeof owner === 'string' ? this.get(owner) : undefined;
  }

  /**
   * Refunds newest first, optionally of one status.
   *
   * @throws InvalidCursorError when the cursor is not one this listing issued
   */
  list(query: { status?: RefundStatus; limit: number; cursor?: string }): Promise<CursorPage<Refund>> {
    const { status, ...rest } = query;
    return queryListing(
      this.#doc,
      this.tableName,
      refundListing,
      { ...rest, ...(status && { state: status }) },
      (item) => refundItemSchema.parse(item),
    );
  }

  /** The refund's audit trail, oldest first. */
  getAudit(id: string): Promise<RefundAuditEvent[]> {
    return readItemCollection(this.#doc, this.tableName, refundKeys.refund(id).pk, 'AUDIT#', (item) =>
      auditItemSchema.parse(item),
    );
  }

  /** The sum of our refunds of a transaction that count (accepted, not refused), in kobo. */
  async refundedTotal(transactionId: string): Promise<number> {
    const item = await readItem(this.#doc, this.tableName, refundKeys.refundedTotal(transactionId));
    return typeof item?.totalKobo === 'number' ? item.totalKobo : 0;
  }

  /**
   * Replaces the refund only if it is still at `before.version`, together with everything in `change`; the change
   * that records the provider's refund id also writes the refund's accepted item (accepted-refund-item.ts).
   *
   * @throws ConcurrentModificationError, PayoutsPausedError, DailyCapExceededError, RefundExceedsAmountPaidError
   */
  async update(before: Refund, after: Refund, change: RefundChange = {}): Promise<Refund> {
    const items: TransactItem[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: toRefundItem(after),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': before.version },
        },
      },
    ];
    const auditIndex = change.audit ? items.length : -1;
    if (change.audit) {
      items.push({
        Put: {
          TableName: this.tableName,
          Item: toAuditItem(change.audit),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    }
    const pauseIndex = change.requireNotPaused ? items.push(pauseCheckItem(this.tableName)) - 1 : -1;
    const totalIndex = change.totalDeltaKobo
      ? items.push(this.#totalUpdate(after, change.totalDeltaKobo)) - 1
      : -1;
    // The change that gives the refund its provider refund id puts its accepted item: only the two that make it
    // `pending` set the id (the provider's answer, two people's resolution of an `unknown` refund), and none
    // changes it after. Unconditional: recording the answer must never fail on it (a provider that answered one
    // id for two refunds would have the second overwrite the first).
    const accepted = after.providerRefundId;
    if (accepted && accepted !== before.providerRefundId) {
      const resolved = before.status === RefundStatus.Unknown;
      items.push({ Put: { TableName: this.tableName, Item: acceptedRefundItem(after, accepted, resolved) } });
    }
    // The cap items go last: how many there are depends on the shards the claim finds room on.
    const commitWith = (capItems: readonly TransactItem[]) => {
      const capStart = items.length;
      return commitRetryingConflicts(
        async () => {
          await this.#doc.send(new TransactWriteCommand({ TransactItems: [...items, ...capItems] }));
          return after;
        },
        async (reasons, error) => {
          const failed = (index: number) => index >= 0 && reasons[index] === 'ConditionalCheckFailed';
          if (failed(0) || failed(auditIndex))
            throw new ConcurrentModificationError('refund', before.id, { cause: error });
          if (failed(pauseIndex)) throw new PayoutsPausedError('payouts are paused', { cause: error });
          if (reasons.slice(capStart).includes('ConditionalCheckFailed')) {
            const message = `the daily cap of ${change.cap?.capKey} on ${change.cap?.day} would be exceeded`;
            throw new DailyCapExceededError(message, { cause: error });
          }
          if (failed(totalIndex)) throw await this.#exceeded(after, error);
          throw new ConcurrentModificationError('refund', before.id, { cause: error });
        },
      );
    };
    if (!change.cap) return commitWith([]);
    return reserveOnCapShards({
      doc: this.#doc,
      tableName: this.tableName,
      cap: change.cap,
      homeId: after.id,
      commit: commitWith,
    });
  }

  /** Refunds the sweeper should look at by `dueBy`, earliest first; reads only those. */
  async due(dueBy: string, limit: number): Promise<Refund[]> {
    const { Items } = await this.#doc.send(
      new QueryCommand(dueWorkQuery(this.tableName, refundKeys.workPartition, dueBy, limit)),
    );
    return (Items ?? []).map((item) => refundItemSchema.parse(item));
  }

  /**
   * The refunded total's update: a reservation may not take it above the amount paid (the first reservation of
   * a transaction always fits: the service refuses an amount above the amount paid before writing); a release
   * (negative) always applies.
   */
  #totalUpdate(refund: Refund, deltaKobo: number): TransactItem {
    const reserving = deltaKobo > 0;
    return {
      Update: {
        TableName: this.tableName,
        Key: refundKeys.refundedTotal(refund.transactionId),
        UpdateExpression: 'ADD totalKobo :delta SET entity = :entity, transactionId = :transactionId',
        ...(reserving && {
          ConditionExpression: 'attribute_not_exists(totalKobo) OR totalKobo <= :headroom',
        }),
        ExpressionAttributeValues: {
          ':delta': deltaKobo,
          ':entity': 'refundedTotal',
          ':transactionId': refund.transactionId,
          ...(reserving && { ':headroom': (refund.amountPaidKobo ?? 0) - deltaKobo }),
        },
      },
    };
  }

  async #exceeded(refund: Refund, cause: unknown): Promise<RefundExceedsAmountPaidError> {
    const already = await this.refundedTotal(refund.transactionId);
    return new RefundExceedsAmountPaidError(refund.amountKobo, refund.amountPaidKobo ?? 0, already, {
      cause,
    });
  }
}
