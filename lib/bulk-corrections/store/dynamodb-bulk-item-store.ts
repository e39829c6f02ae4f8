import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Approval } from '../../controls/index.js';
import type { CapChange } from '../../payouts/index.js';
import { isConditionalCheckFailed } from '../../shared/conditional-check.js';
import { DocumentClient, PutCommand, QueryCommand, UpdateCommand } from '../../shared/document-client.js';
import { ConcurrentModificationError, InvalidTransitionError } from '../../shared/errors.js';
import { ulid } from '../../shared/ids.js';
import { type Listing, listingAttributes, queryListing } from '../../shared/index-listing.js';
import type { CursorPage } from '../../shared/paging.js';
import { storedPrincipal as principalSchema, storedApproval } from '../../shared/stored-principal.js';
import { readItem } from '../../shared/table-reads.js';
import * as z from '../../shared/zod.js';
import { TableIndexes } from '../../table/index.js';
import type { BulkItemStore, SingleClaim } from '../bulk-item-store.js';
import {
  type BulkItemState,
  CORRECTION_OUTCOMES,
  type CorrectionAudit,
  type HeldCancellation,
  type PendingCorrection,
} from '../model.js';
import { claimWithCap, releaseCap } from './cap-reservation.js';

// The schemas below are built on first use (z.lazy), not when a function loads this module: a cold start that never
// reads these items does not pay for them (docs/cold-start.md).

/** Keys of bulk-item items in the project's single table: the latest state and one audit item per correction. */
export const bulkItemKeys = {
  latest: (id: string) => ({ pk: `BULK_ITEM#${id}`, sk: 'LATEST' }),
  audit: (id: string, at: string) => ({ pk: `BULK_ITEM#${id}`, sk: `AUDIT#${at}#${ulid(new Date(at))}` }),
  correction: (id: string, correctionId: string) => ({
    pk: `BULK_ITEM#${id}`,
    sk: `CORRECTION#${correctionId}`,
  }),
  /** The claim of a single correction (PATCH) being sent: one at a time per item. */
  claim: (id: string) => ({ pk: `BULK_ITEM#${id}`, sk: 'CLAIM' }),
} as const;

/** Items by the provider's latest verdict (`true`/`false`) and all, by last change, newest first. */
const bulkItemListing: Listing = {
  statePartition: (isValid) => `BULK_ITEM#VALID#${isValid}`,
  allPartition: 'BULK_ITEM#ALL',
};

/** Corrections held for approval, by status (`pending_approval`, `approved`, `cancelled`) and all, newest first. */
const correctionListing: Listing = {
  statePartition: (status) => `BULK_CORRECTION#STATUS#${status}`,
  allPartition: 'BULK_CORRECTION#ALL',
};

const listingKeys = (state: BulkItemState) =>
  listingAttributes(bulkItemListing, String(state.record.isValid), state.updatedAt, state.bulkPayoutItemId);

const value = z.lazy(() => z.union([z.string(), z.number()]));
const valuesSchema = z.lazy(() =>
  z.object({
    accountNumber: z.optional(value),
    bankCode: z.optional(value),
    amountKobo: z.optional(value),
    phoneNumber: z.optional(value),
    narration: z.optional(value),
  }),
);
const stateSchema = z.lazy(() =>
  z.object({
    bulkPayoutItemId: z.string(),
    record: z.object({
      accountName: z.string(),
      accountNumber: z.string(),
      bankCode: z.string(),
      bankName: z.string(),
      isValid: z.boolean(),
      reason: z.nullable(z.string()),
      createdAt: z.string(),
    }),
    values: valuesSchema,
    amountSetBy: z.optional(principalSchema),
    version: z.int(),
    updatedAt: z.string(),
  }),
);
const outcomeSchema = z.lazy(() => z.enum(CORRECTION_OUTCOMES));
const changesSchema = z.lazy(() =>
  z.array(
    z.object({
      field: z.enum(['accountNumber', 'bankCode', 'amountKobo', 'phoneNumber', 'narration']),
      from: z.nullable(value),
      fromKnown: z.boolean(),
      to: value,
    }),
  ),
);
const pendingSchema = z.lazy(() =>
  z.object({
    correctionId: z.string(),
    bulkPayoutItemId: z.string(),
    fields: z.record(z.string(), value),
    changes: changesSchema,
    reason: z.string(),
    status: z.enum(['pending_approval', 'approved', 'cancelled']),
    requestedBy: principalSchema,
    requestedAt: z.string(),
    approvedBy: z.optional(principalSchema),
    approvedAt: z.optional(z.string()),
    firstApproval: z.optional(storedApproval),
    outcome: z.optional(outcomeSchema),
    cancelledBy: z.optional(principalSchema),
    cancelledAt: z.optional(z.string()),
    cancelReason: z.optional(z.string()),
    job: z.optional(z.object({ jobId: z.string(), index: z.int() })),
  }),
);
const auditSchema = z.lazy(() =>
  z.object({
    bulkPayoutItemId: z.string(),
    at: z.string(),
    actor: principalSchema,
    approvedBy: z.optional(principalSchema),
    changes: changesSchema,
    outcome: outcomeSchema,
    provider: z.optional(z.object({ isValid: z.boolean(), reason: z.nullable(z.string()) })),
    failure: z.optional(z.object({ code: z.string(), message: z.string() })),
  }),
);

/**
 * Latest state, held corrections and audit of bulk payout items in the project's table (the BulkItemStore port,
 * bulk-item-store.ts); the state is replaced only at the version it was read.
 */
export class DynamoDbBulkItemStore implements BulkItemStore {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  async get(id: string): Promise<BulkItemState | undefined> {
    const item = await readItem(this.#doc, this.tableName, bulkItemKeys.latest(id));
    return item ? stateSchema.parse(item) : undefined;
  }

  /**
   * The items corrected here, newest change first, optionally only those the provider holds as (in)valid.
   *
   * @throws InvalidCursorError when the cursor is not one this listing issued
   */
  async list(query: {
    isValid?: boolean;
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<BulkItemState>> {
    const { isValid, ...rest } = query;
    return queryListing(
      this.#doc,
      this.tableName,
      bulkItemListing,
      { ...rest, ...(isValid !== undefined && { state: String(isValid) }) },
      (item) => stateSchema.parse(item),
    );
  }

  /** The item's corrections, oldest first. */
  async audit(id: string): Promise<CorrectionAudit[]> {
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
        ExpressionAttributeValues: { ':pk': `BULK_ITEM#${id}`, ':audit': 'AUDIT#' },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => auditSchema.parse(item));
  }

  /**
   * Records a correction that waits for a second person; it never overwrites. A job row's correction has its id
   * fixed up front, so a redelivered row finds it already recorded (false) instead of holding it twice.
   */
  async putPending(correction: PendingCorrection): Promise<boolean> {
    try {
      await this.#put(correction);
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  async #put(correction: PendingCorrection): Promise<void> {
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...bulkItemKeys.correction(correction.bulkPayoutItemId, correction.correctionId),
          entity: 'bulk-item-correction',
          ...correction,
          ...listingAttributes(
            correctionListing,
            correction.status,
            correction.requestedAt,
            correction.correctionId,
          ),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getPending(id: string, correctionId: string): Promise<PendingCorrection | undefined> {
    const item = await readItem(this.#doc, this.tableName, bulkItemKeys.correction(id, correctionId));
    return item ? pendingSchema.parse(item) : undefined;
  }

  /** Held corrections across items, newest first, optionally of one status (`pending_approval`: the queue). */
  listCorrections(query: {
    status?: PendingCorrection['status'];
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<PendingCorrection>> {
    const { status, ...rest } = query;
    return queryListing(
      this.#doc,
      this.tableName,
      correctionListing,
      { ...rest, ...(status && { state: status }) },
      (item) => pendingSchema.parse(item),
    );
  }

  /** The item's corrections that were held for approval, oldest first (decided ones too, with their outcome). */
  async pending(id: string): Promise<PendingCorrection[]> {
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :correction)',
        ExpressionAttributeValues: { ':pk': `BULK_ITEM#${id}`, ':correction': 'CORRECTION#' },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => pendingSchema.parse(item));
  }

  /**
   * Moves a held correction from `pending_approval` to `approved`: only the request whose write commits sends
   * it, so two approvers racing send it once. It commits with the reservation of the amount at stake on the daily
   * cap (`cap`), in one transaction.
   *
   * @throws InvalidTransitionError when it is no longer waiting
   * @throws DailyCapExceededError when the reservation would pass the cap: nothing written, it still waits
   */
  async claimApproval(
    correction: PendingCorrection,
    approvedBy: PendingCorrection['requestedBy'],
    at: string,
    cap?: CapChange,
  ): Promise<void> {
    const claimed = await claimWithCap(
      this.#doc,
      this.tableName,
      {
        Update: {
          TableName: this.tableName,
          Key: bulkItemKeys.correction(correction.bulkPayoutItemId, correction.correctionId),
          UpdateExpression:
            'SET #status = :approved, approvedBy = :by, approvedAt = :at, #listedUnder = :listed',
          ConditionExpression: '#status = :waiting',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#listedUnder': TableIndexes.byStatus.partitionKey,
          },
          ExpressionAttributeValues: {
            ':approved': 'approved',
            ':listed': correctionListing.statePartition('approved'),
            ':waiting': 'pending_approval',
            ':by': approvedBy,
            ':at': at,
          },
        },
      },
      cap,
    );
    if (!claimed) {
      throw new InvalidTransitionError(
        'correction',
        `correction ${correction.correctionId} of bulk payout item ${correction.bulkPayoutItemId} is no longer waiting for approval`,
      );
    }
  }

  /**
   * Records the first of two approvals of a held correction (the second-approval threshold): it stays
   * `pending_approval`, nothing claimed or reserved. Recorded once: of two first approvals at once, one commits.
   *
   * @throws ConcurrentModificationError when it is no longer waiting, or a first approval was recorded meanwhile
   */
  async recordFirstApproval(
    correction: PendingCorrection,
    firstApproval: Approval,
  ): Promise<PendingCorrection> {
    try {
      await this.#doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: bulkItemKeys.correction(correction.bulkPayoutItemId, correction.correctionId),
          UpdateExpression: 'SET firstApproval = :f',
          ConditionExpression: '#status = :w AND attribute_not_exists(firstApproval)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':w': 'pending_approval', ':f': firstApproval },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error))
        throw new ConcurrentModificationError('correction', correction.correctionId);
      throw error;
    }
    return { ...correction, firstApproval };
  }

  /**
   * Gives back an approval claimed at `approvedAt` whose correction was never sent (payouts were paused once the
   * claim committed): `approved` -> `pending_approval`, the approver forgotten, so a person approves it again
   * after resume. Conditional on that claim and on no outcome recorded, so it never reopens a sent correction. The
   * claim's reservation on the daily cap (`cap`) is given back in the same transaction.
   *
   * @throws ConcurrentModificationError when it is no longer that claim (nothing given back)
   */
  async releaseApproval(correction: PendingCorrection, approvedAt: string, cap?: CapChange): Promise<void> {
    const released = await claimWithCap(
      this.#doc,
      this.tableName,
      {
        Update: {
          TableName: this.tableName,
          Key: bulkItemKeys.correction(correction.bulkPayoutItemId, correction.correctionId),
          UpdateExpression: 'SET #status = :waiting, #listedUnder = :listed REMOVE approvedBy, approvedAt',
          ConditionExpression: '#status = :approved AND approvedAt = :at AND attribute_not_exists(outcome)',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#listedUnder': TableIndexes.byStatus.partitionKey,
          },
          ExpressionAttributeValues: {
            ':waiting': 'pending_approval',
            ':approved': 'approved',
            ':listed': correctionListing.statePartition('pending_approval'),
            ':at': approvedAt,
          },
        },
      },
      undefined,
      cap,
    );
    if (!released) throw new ConcurrentModificationError('correction', correction.correctionId);
  }

  /**
   * Takes the claim of a single correction of an item before its provider call, with the reservation of its
   * amount at stake on the daily cap (`cap`) in the same transaction: of two corrections of the item at once, only
   * the one whose claim commits is sent. A claim ended (`releasedAt`) or older than its lease (`leaseUntil` passed:
   * the request that held it stopped) is taken over. False when another request holds it.
   *
   * @throws DailyCapExceededError when the reservation would pass the cap: nothing written
   */
  claimSingle(id: string, claim: SingleClaim, cap: CapChange | undefined): Promise<boolean> {
    return claimWithCap(
      this.#doc,
      this.tableName,
      {
        Put: {
          TableName: this.tableName,
          Item: { ...bulkItemKeys.claim(id), entity: 'bulk-item-claim', ...claim },
          ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(releasedAt) OR leaseUntil < :at',
          ExpressionAttributeValues: { ':at': claim.at },
        },
      },
      cap,
    );
  }

  /**
   * Ends a single correction's claim (`claimId`, only if still ours), and gives its reservation on the daily cap
   * back in the same transaction when `cap` is named: only for a claim that sent nothing. The claim item is marked
   * ended, not deleted (the API's role writes and updates items, it deletes none); the next claim overwrites it.
   */
  async releaseSingle(id: string, claimId: string, at: string, cap?: CapChange): Promise<void> {
    await claimWithCap(
      this.#doc,
      this.tableName,
      {
        Update: {
          TableName: this.tableName,
          Key: bulkItemKeys.claim(id),
          UpdateExpression: 'SET releasedAt = :at',
          ConditionExpression: 'claimId = :claimId AND attribute_not_exists(releasedAt)',
          ExpressionAttributeValues: { ':claimId': claimId, ':at': at },
        },
      },
      undefined,
      cap,
    );
  }

  /** Gives a reservation on the daily cap back: only for a correction the provider refused or reports invalid. */
  releaseCap(cap: CapChange): Promise<void> {
    return releaseCap(this.#doc, this.tableName, cap);
  }

  /**
   * Withdraws a held correction: `pending_approval` -> `cancelled`, with who, when and why, and out of the
   * approvals queue's listing. Conditional on the status as `claimApproval` is, so a cancel and an approval racing
   * for the same correction cannot both commit: the one that loses finds it no longer waiting, and a cancelled
   * correction is never sent.
   *
   * @throws InvalidTransitionError when it is no longer waiting (approved, or cancelled already)
   */
  async cancelHeld(
    correction: PendingCorrection,
    cancellation: HeldCancellation,
  ): Promise<PendingCorrection> {
    const { cancelledBy, cancelledAt, cancelReason } = cancellation;
    try {
      const { Attributes } = await this.#doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: bulkItemKeys.correction(correction.bulkPayoutItemId, correction.correctionId),
          UpdateExpression: `SET #status = :cancelled, cancelledBy = :by, cancelledAt = :at, #listedUnder = :listed${
            cancelReason === undefined ? '' : ', cancelReason = :reason'
          }`,
          ConditionExpression: '#status = :waiting',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#listedUnder': TableIndexes.byStatus.partitionKey,
          },
          ExpressionAttributeValues: {
            ':cancelled': 'cancelled',
            ':listed': correctionListing.statePartition('cancelled'),
            ':waiting': 'pending_approval',
            ':by': cancelledBy,
            ':at': cancelledAt,
            ...(cancelReason !== undefined && { ':reason': cancelReason }),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return pendingSchema.parse(Attributes);
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        throw new InvalidTransitionError(
          'correction',
          `correction ${correction.correctionId} of bulk payout item ${correction.bulkPayoutItemId} is no longer waiting for approval; only a correction in pending_approval can be cancelled`,
        );
      }
      throw error;
    }
  }

  /** Records what came of an approved correction. */
  async recordOutcome(id: string, correctionId: string, outcome: string): Promise<void> {
    await this.#doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: bulkItemKeys.correction(id, correctionId),
        UpdateExpression: 'SET outcome = :outcome',
        ExpressionAttributeValues: { ':outcome': outcome },
      }),
    );
  }

  /** Appends one audit entry; written whatever else fails, since the provider may have acted. */
  async appendAudit(audit: CorrectionAudit): Promise<void> {
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...bulkItemKeys.audit(audit.bulkPayoutItemId, audit.at),
          entity: 'bulk-item-audit',
          ...audit,
        },
      }),
    );
  }

  /** Replaces the state only if it is still at `expectedVersion` (0: none yet). */
  async putState(state: BulkItemState, expectedVersion: number): Promise<void> {
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...bulkItemKeys.latest(state.bulkPayoutItemId),
            entity: 'bulk-item',
            ...state,
            ...listingKeys(state),
          },
          ...(expectedVersion === 0
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: 'version = :version',
                ExpressionAttributeValues: { ':version': expectedVersion },
              }),
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        throw new ConcurrentModificationError('bulk payout item', state.bulkPayoutItemId, { cause: error });
      }
      throw error;
    }
  }
}
