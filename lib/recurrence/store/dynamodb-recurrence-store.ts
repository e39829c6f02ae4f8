import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import type { CreationCompanion } from '../../payouts/index.js';
import { decodeCursor, encodeCursor } from '../../shared/cursor.js';
import {
  DocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteItem,
  UpdateCommand,
} from '../../shared/document-client.js';
import { ConcurrentModificationError, InvalidCursorError } from '../../shared/errors.js';
import { createWithIdempotencyKey } from '../../shared/idempotent-create.js';
import { dueWorkQuery, readItem } from '../../shared/table-reads.js';
import { commitRetryingConflicts } from '../../shared/transaction-conflicts.js';
import * as z from '../../shared/zod.js';
import { TableIndexes } from '../../table/index.js';
import {
  type CommandAuditEvent,
  type OccurrenceRecord,
  OccurrenceState,
  type Recurrence,
  type RecurrenceAuditEvent,
  type RecurrenceStatus,
  type RecurrenceTrailEvent,
} from '../model.js';
import {
  fromOccurrenceItem,
  fromRecurrenceItem,
  shownAuditEvents,
  toAuditItem,
  toProvisionalAuditItem,
  toRecurrenceItem,
} from './item-codec.js';
import type {
  CreateRecurrenceOutcome,
  RecordMaterialisedOutcome,
  RecurrencePage,
  RecurrenceStore,
} from './recurrence-store.js';
import { recurrenceKeys } from './table-keys.js';

/**
 * RecurrenceStore on the project's single table. Reads of the work queue are one Query over a time range
 * of the sparse gsi3 index: only active recurrences whose next occurrence is due are read.
 */
export class DynamoDbRecurrenceStore implements RecurrenceStore {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  async create(recurrence: Recurrence, audit: RecurrenceAuditEvent): Promise<CreateRecurrenceOutcome> {
    const outcome = await createWithIdempotencyKey(this.#doc, {
      tableName: this.tableName,
      key: recurrenceKeys.idempotency(recurrence.idempotencyKey),
      ownerAttribute: 'recurrenceId',
      ownerId: recurrence.id,
      createdAt: recurrence.createdAt,
      items: [toRecurrenceItem(recurrence), toAuditItem(audit)],
    });
    if (outcome.created) return { created: true, recurrence };
    const existing = await this.get(outcome.ownerId);
    if (!existing) throw new ConcurrentModificationError('recurring payout', recurrence.id);
    return { created: false, existing };
  }

  async get(id: string): Promise<Recurrence | undefined> {
    const item = await readItem(this.#doc, this.tableName, recurrenceKeys.recurrence(id));
    return item ? fromRecurrenceItem(item) : undefined;
  }

  async replace(
    before: Recurrence,
    after: Recurrence,
    audit?: RecurrenceAuditEvent | CommandAuditEvent,
  ): Promise<Recurrence> {
    const put = {
      TableName: this.tableName,
      Item: toRecurrenceItem(after),
      ConditionExpression: '#version = :version',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':version': before.version },
    };
    try {
      if (audit) {
        await this.#doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: put },
              {
                Put: {
                  TableName: this.tableName,
                  Item: toAuditItem(audit),
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        );
      } else {
        await this.#doc.send(new PutCommand(put));
      }
      return after;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException || error instanceof TransactionCanceledException) {
        throw new ConcurrentModificationError('recurring payout', before.id, { cause: error });
      }
      throw error;
    }
  }

  async audit(id: string): Promise<RecurrenceTrailEvent[]> {
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
        ExpressionAttributeValues: { ':pk': recurrenceKeys.recurrence(id).pk, ':audit': 'AUDIT#' },
        ConsistentRead: true,
      }),
    );
    return shownAuditEvents(Items ?? []);
  }

  async list(query: { status?: RecurrenceStatus; limit: number; cursor?: string }): Promise<RecurrencePage> {
    const index = query.status ? TableIndexes.byStatus : TableIndexes.byMonth;
    const partition = query.status
      ? recurrenceKeys.statusPartition(query.status)
      : recurrenceKeys.allPartition;
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: index.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.partitionKey },
        ExpressionAttributeValues: { ':pk': partition },
        ScanIndexForward: false,
        Limit: query.limit,
        ExclusiveStartKey: readListCursor(query.cursor, query.status),
      }),
    );
    const items = (page.Items ?? []).map(fromRecurrenceItem);
    return page.LastEvaluatedKey ? { items, nextCursor: encodeCursor(page.LastEvaluatedKey) } : { items };
  }

  async due(dueBy: string, limit: number): Promise<{ items: Recurrence[]; read: number }> {
    const page = await this.#doc.send(
      new QueryCommand(dueWorkQuery(this.tableName, recurrenceKeys.workPartition, dueBy, limit)),
    );
    return { items: (page.Items ?? []).map(fromRecurrenceItem), read: page.ScannedCount ?? 0 };
  }

  async recordMaterialised(record: OccurrenceRecord): Promise<RecordMaterialisedOutcome> {
    const write = materialisedWrite(record);
    try {
      const { Attributes } = await this.#doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          ...write,
          // Also the same payout again (a repeated tick, or a replay of the key): recording it is a no-op.
          ConditionExpression: `${write.ConditionExpression} OR (#state = :materialised AND payoutId = :payoutId)`,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { recorded: true, record: fromOccurrenceItem(Attributes ?? {}) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const current = await this.getOccurrence(record.recurrenceId, record.localDate);
      if (!current)
        throw new ConcurrentModificationError('recurring payout', record.recurrenceId, { cause: error });
      return { recorded: false, current };
    }
  }

  materialisation(
    record: OccurrenceRecord,
    recurrence: Recurrence,
    advanced?: Recurrence,
  ): CreationCompanion {
    const condition = {
      ConditionExpression: '#version = :version',
      ExpressionAttributeNames: { '#version': 'version' },
    };
    return {
      items: [
        { Update: { TableName: this.tableName, ...materialisedWrite(record) } },
        // The version steps on, so that a command that read the recurrence before this payout existed (and so
        // missed it in the history) fails its conditional write and reads the history again. With `advanced`,
        // the step is the tick's whole write of the pointer (one write of the recurrence per occurrence);
        // without it, only the version, and the tick writes the pointer after.
        advanced
          ? {
              Put: {
                TableName: this.tableName,
                Item: toRecurrenceItem({ ...advanced, version: recurrence.version + 1 }),
                ...condition,
                ExpressionAttributeValues: { ':version': recurrence.version },
              },
            }
          : {
              Update: {
                TableName: this.tableName,
                Key: recurrenceKeys.recurrence(recurrence.id),
                UpdateExpression: 'SET #version = :next',
                ...condition,
                ExpressionAttributeValues: {
                  ':version': recurrence.version,
                  ':next': recurrence.version + 1,
                },
              },
            },
      ],
    };
  }

  holdOccurrence(
    recurrenceId: string,
    localDate: string,
    payoutId: string,
    reason: string,
    provisional?: CommandAuditEvent,
  ): Promise<boolean> {
    return this.#occurrenceWrite(
      {
        TableName: this.tableName,
        Key: recurrenceKeys.occurrence(recurrenceId, localDate),
        UpdateExpression: 'SET #state = :held, reason = :reason',
        ConditionExpression: '#state = :materialised AND payoutId = :payoutId',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':held': OccurrenceState.Held,
          ':materialised': OccurrenceState.Materialised,
          ':payoutId': payoutId,
          ':reason': reason,
        },
      },
      recurrenceId,
      provisional,
    );
  }

  recordSkipped(
    record: OccurrenceRecord,
    expected?: OccurrenceRecord,
    provisional?: CommandAuditEvent,
  ): Promise<boolean> {
    return this.#occurrenceWrite(
      {
        TableName: this.tableName,
        Key: recurrenceKeys.occurrence(record.recurrenceId, record.localDate),
        UpdateExpression: `SET ${OCCURRENCE_SET}, #state = :state, reason = :reason, recordedAt = :now${record.payoutId ? ', payoutId = :payoutId' : ''}`,
        // Only over the record the caller read and decided on: a payout materialised meanwhile is never
        // overwritten by "skipped" (the caller reads again and cancels it first).
        ConditionExpression: !expected
          ? 'attribute_not_exists(#state)'
          : `#state = :expectedState AND ${expected.payoutId ? 'payoutId = :expectedPayoutId' : 'attribute_not_exists(payoutId)'}`,
        ExpressionAttributeNames: OCCURRENCE_NAMES,
        ExpressionAttributeValues: {
          ...occurrenceValues(record),
          ':state': record.state,
          ':reason': record.reason ?? 'skipped',
          ':now': record.recordedAt,
          ...(record.payoutId && { ':payoutId': record.payoutId }),
          ...(expected && { ':expectedState': expected.state }),
          ...(expected?.payoutId && { ':expectedPayoutId': expected.payoutId }),
        },
      },
      record.recurrenceId,
      provisional,
    );
  }

  /**
   * One conditional write of an occurrence record; with a command's `provisional` audit event, both in one
   * transaction, so the change never commits without it (model.ts, CommandAuditEvent). False when the record's
   * condition failed (it changed meanwhile) and nothing was written: the caller reads it again.
   *
   * A transaction cancelled only by `TransactionConflict` (another transaction on the record, such as a tick's
   * materialisation, in flight at the same moment) wrote nothing and failed no condition, so the same transaction
   * is sent again after a jittered pause (commitRetryingConflicts, as the payout and refund stores do): without that, a collision that a
   * moment's wait resolves would answer the command 409 at once, outside the command's own retries (which start
   * only at its write of the recurrence). Conflicts that outlast the retries, or a cancellation for any other
   * reason, are a concurrent modification: the command answers 409.
   */
  async #occurrenceWrite(
    update: OccurrenceUpdate,
    recurrenceId: string,
    provisional: CommandAuditEvent | undefined,
  ): Promise<boolean> {
    if (!provisional) {
      try {
        await this.#doc.send(new UpdateCommand(update));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    }
    const transaction = new TransactWriteCommand({
      TransactItems: [
        { Update: update },
        // Its key is the command's own (commandId): nothing else writes it, so it needs no condition.
        { Put: { TableName: this.tableName, Item: toProvisionalAuditItem(provisional) } },
      ],
    });
    return commitRetryingConflicts(
      async () => {
        await this.#doc.send(transaction);
        return true;
      },
      (reasons, error) => {
        if (reasons[0] === 'ConditionalCheckFailed') return false;
        throw new ConcurrentModificationError('recurring payout', recurrenceId, { cause: error });
      },
    );
  }

  async getOccurrence(recurrenceId: string, localDate: string): Promise<OccurrenceRecord | undefined> {
    const item = await readItem(
      this.#doc,
      this.tableName,
      recurrenceKeys.occurrence(recurrenceId, localDate),
    );
    return item ? fromOccurrenceItem(item) : undefined;
  }

  async occurrences(recurrenceId: string, limit: number, before?: string): Promise<OccurrenceRecord[]> {
    // Before a date: from that occurrence's key down (BETWEEN is inclusive, so one more is read and it is left out).
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression:
          before === undefined
            ? 'pk = :pk AND begins_with(sk, :prefix)'
            : 'pk = :pk AND sk BETWEEN :prefix AND :before',
        ExpressionAttributeValues: {
          ':pk': recurrenceKeys.recurrence(recurrenceId).pk,
          ':prefix': 'OCCURRENCE#',
          ...(before !== undefined && { ':before': recurrenceKeys.occurrence(recurrenceId, before).sk }),
        },
        ScanIndexForward: false,
        Limit: before === undefined ? limit : limit + 1,
        ConsistentRead: true,
      }),
    );
    const records = (Items ?? []).map(fromOccurrenceItem);
    return before === undefined ? records : records.filter((r) => r.localDate !== before).slice(0, limit);
  }

  async occurrencesFrom(
    recurrenceId: string,
    range: { from: string; to?: string },
  ): Promise<OccurrenceRecord[]> {
    const records: OccurrenceRecord[] = [];
    let after: Record<string, unknown> | undefined;
    do {
      const page = await this.#doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': recurrenceKeys.recurrence(recurrenceId).pk,
            ':from': recurrenceKeys.occurrence(recurrenceId, range.from).sk,
            // Every date sorts before `\uffff`: without `to`, the range runs to the newest record.
            ':to': recurrenceKeys.occurrence(recurrenceId, range.to ?? '\uffff').sk,
          },
          ConsistentRead: true,
          ExclusiveStartKey: after,
        }),
      );
      records.push(...(page.Items ?? []).map(fromOccurrenceItem));
      after = page.LastEvaluatedKey;
    } while (after);
    return records;
  }
}

/** What every write of an occurrence record sets: the record's kind, its recurrence, date, index and time. */
const OCCURRENCE_SET = 'entity = :entity, recurrenceId = :rid, localDate = :date, #index = :index, #at = :at';
const OCCURRENCE_NAMES = { '#index': 'index', '#at': 'at', '#state': 'state' };

/** The values of OCCURRENCE_SET for `record`. */
function occurrenceValues(record: OccurrenceRecord) {
  return {
    ':entity': 'occurrence',
    ':rid': record.recurrenceId,
    ':date': record.localDate,
    ':index': record.index,
    ':at': record.at,
  };
}

/** A conditional update of one occurrence record, as a single write or as a transaction's action alike. */
type OccurrenceUpdate = NonNullable<TransactWriteItem['Update']> & { TableName: string };

/**
 * The write that records an occurrence's payout, on the condition that nothing was recorded yet or the record is
 * `held` at an older generation (a resume materialises it again). A skip, or a newer generation, is never
 * overwritten.
 */
function materialisedWrite(record: OccurrenceRecord) {
  return {
    Key: recurrenceKeys.occurrence(record.recurrenceId, record.localDate),
    UpdateExpression:
      `SET ${OCCURRENCE_SET}, ` +
      'payoutId = :payoutId, generation = :generation, #state = :materialised, recordedAt = :now ' +
      'REMOVE reason',
    ConditionExpression:
      'attribute_not_exists(#state) OR ' +
      '(#state = :held AND (attribute_not_exists(generation) OR generation < :generation))',
    ExpressionAttributeNames: OCCURRENCE_NAMES,
    ExpressionAttributeValues: {
      ...occurrenceValues(record),
      ':payoutId': record.payoutId,
      ':generation': record.generation ?? 1,
      ':materialised': OccurrenceState.Materialised,
      ':held': OccurrenceState.Held,
      ':now': record.recordedAt,
    },
  };
}

/**
 * A listing cursor is exactly the `LastEvaluatedKey` `list` returns for the same query: the table key and the
 * index key of a recurrence, in the query's partition. Anything else is a 400 naming `cursor`, never a key
 * DynamoDB refuses (a 500).
 */
function readListCursor(cursor: string | undefined, status: RecurrenceStatus | undefined) {
  if (cursor === undefined) return undefined;
  const index = status ? TableIndexes.byStatus : TableIndexes.byMonth;
  const shape = z.strictObject({
    pk: z.string().check(z.regex(/^RECURRENCE#[0-9A-Za-z]{1,64}$/)),
    sk: z.literal('RECURRENCE'),
    [index.partitionKey]: z.literal(
      status ? recurrenceKeys.statusPartition(status) : recurrenceKeys.allPartition,
    ),
    [index.sortKey]: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T[0-9:.]{5,18}Z#[0-9A-Za-z]{1,64}$/)),
  });
  const key = decodeCursor(cursor, shape);
  if (key === undefined) {
    throw new InvalidCursorError('is not a cursor this API issued');
  }
  return key;
}
