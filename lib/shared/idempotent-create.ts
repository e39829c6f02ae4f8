import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from './document-client.js';
import { errorKind } from './errors.js';
import { jitteredPause } from './jitter.js';
import { readItem } from './table-reads.js';

const MAX_CONFLICT_RETRIES = 5;

export interface IdempotentCreate {
  readonly tableName: string;
  /** Key of the idempotency item, e.g. `IDEMPOTENCY#refund#<key>` / `IDEMPOTENCY`. */
  readonly key: { readonly pk: string; readonly sk: string };
  /** Attribute of the idempotency item that names the record holding the key, e.g. `refundId`. */
  readonly ownerAttribute: string;
  readonly ownerId: string;
  readonly createdAt: string;
  /** More attributes of the idempotency item (a payout's creation audit events). */
  readonly keyAttributes?: Readonly<Record<string, unknown>>;
  /** The records created with the key (each written only if its `pk` does not exist yet). */
  readonly items: readonly Record<string, unknown>[];
  /**
   * Conditional writes that must hold for the records to be created (a counter that may not pass a limit). When
   * one fails and the key is still free, the create throws IdempotentCreateGuardError naming it.
   */
  readonly guards?: readonly NonNullable<TransactWriteCommandInput['TransactItems']>[number][];
}

/** The key was free and everything was written, or the key already belonged to `ownerId`. */
export type IdempotentCreateOutcome =
  | { readonly created: true }
  | { readonly created: false; readonly ownerId: string };

/** The key stayed contested after retries (concurrent writers kept colliding). */
export class IdempotencyKeyContestedError extends /* @__PURE__ */ errorKind(
  'IdempotencyKeyContestedError',
  'IDEMPOTENCY_KEY_CONTESTED',
) {}

/** A guard of the create failed its condition, so nothing was written (the key was free). */
export class IdempotentCreateGuardError extends /* @__PURE__ */ errorKind(
  'IdempotentCreateGuardError',
  'IDEMPOTENT_CREATE_GUARD_FAILED',
) {
  constructor(
    /** Index of the failed guard in `guards`. */
    readonly guardIndex: number,
    options?: ErrorOptions,
  ) {
    super(`guard ${guardIndex} of the create failed its condition`, options);
  }
}

/**
 * Writes an idempotency key and the records it guards in one transaction, each conditional on not
 * existing. When the key is taken it answers with the owner instead; when a concurrent request with the
 * same key is mid-commit (a transaction conflict, or a condition failure before its item is readable),
 * it looks again shortly, so concurrent duplicates all end with the same owner.
 *
 * @example
 * const outcome = await createWithIdempotencyKey(doc, { tableName, key, ownerAttribute: 'refundId', ownerId: refund.id, createdAt, items: [refundItem] });
 */
export async function createWithIdempotencyKey(
  doc: DocumentClient,
  request: IdempotentCreate,
): Promise<IdempotentCreateOutcome> {
  const put = (item: Record<string, unknown>) => ({
    Put: { TableName: request.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
  });
  const keyItem = {
    ...request.key,
    entity: 'idempotency',
    [request.ownerAttribute]: request.ownerId,
    createdAt: request.createdAt,
    ...request.keyAttributes,
  };
  const guards = request.guards ?? [];
  const firstGuard = 1 + request.items.length;
  const transaction = new TransactWriteCommand({
    TransactItems: [put(keyItem), ...request.items.map(put), ...guards],
  });
  for (let attempt = 0; ; attempt++) {
    try {
      await doc.send(transaction);
      return { created: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const owner = (await readItem(doc, request.tableName, request.key))?.[request.ownerAttribute];
      if (typeof owner === 'string') return { created: false, ownerId: owner };
      const reasons = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      const failedGuard = reasons.slice(firstGuard).indexOf('ConditionalCheckFailed');
      if (failedGuard >= 0) throw new IdempotentCreateGuardError(failedGuard, { cause: error });
      if (attempt >= MAX_CONFLICT_RETRIES) {
        throw new IdempotencyKeyContestedError(`idempotency key ${request.key.pk} stayed contested`, {
          cause: error,
        });
      }
      await jitteredPause(attempt, 200);
    }
  }
}
