import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BATCH_WRITE_MAX_ITEMS, putBatch } from '../../shared/batch-write.js';
import { DocumentClient, GetCommand, PutCommand, QueryCommand } from '../../shared/document-client.js';
import * as z from '../../shared/zod.js';
import { TableIndexes, TTL_ATTRIBUTE } from '../../table/index.js';
import type { ProviderScheduleEntry, ProviderScheduleKind, SyncCursor, SyncStatus } from '../model.js';
import type { ProviderScheduleRecords } from '../records.js';

/**
 * The read view of the provider's schedules in the single table:
 *
 * | item          | pk                                  | sk                | gsi2                                               |
 * |---------------|-------------------------------------|-------------------|----------------------------------------------------|
 * | entry         | PROVIDER_SCHEDULE#<kind>#<id>       | PROVIDER_SCHEDULE | PROVIDER_SCHEDULE#<kind> / <startsAt>#<id>         |
 * | sync status   | PROVIDER_SCHEDULE#SYNC              | STATUS            |                                                    |
 *
 * Entries carry a TTL a few syncs long, so one the provider no longer lists disappears by itself.
 */
const keys = {
  entry: (kind: string, id: string) => ({ pk: `PROVIDER_SCHEDULE#${kind}#${id}`, sk: 'PROVIDER_SCHEDULE' }),
  listPartition: (kind: string) => `PROVIDER_SCHEDULE#${kind}`,
  sync: { pk: 'PROVIDER_SCHEDULE#SYNC', sk: 'STATUS' },
  cursor: { pk: 'PROVIDER_SCHEDULE#SYNC', sk: 'CURSOR' },
} as const;

/** An entry not seen again for this long expires. */
const ENTRY_TTL_SECONDS = 2 * 24 * 3600;

const EntrySchema = z.object({
  kind: z.enum(['scheduled', 'recurrent']),
  id: z.string(),
  status: z.string(),
  amount: z.int(),
  charges: z.int(),
  bankCode: z.string(),
  bankName: z.string(),
  accountNumber: z.string(),
  accountName: z.nullable(z.string()),
  narration: z.nullable(z.string()),
  startsAt: z.string(),
  endsAt: z.optional(z.string()),
  interval: z.optional(z.string()),
  transactionId: z.optional(z.nullable(z.string())),
  createdAt: z.string(),
  syncedAt: z.string(),
});

const SyncStatusSchema = z.object({
  lastSyncAt: z.string(),
  scheduled: z.int(),
  recurrent: z.int(),
  truncated: z.boolean(),
});

const CursorSchema = z.object({
  kind: z.enum(['scheduled', 'recurrent']),
  page: z.int(),
  syncedAt: z.string(),
  scheduled: z.int(),
  recurrent: z.int(),
  truncated: z.boolean(),
});

export class DynamoDbProviderScheduleStore implements ProviderScheduleRecords {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  /**
   * Upserts entries, 25 per BatchWriteItem, retrying what DynamoDB hands back unprocessed; `signal` abandons
   * the rest (what was written stays written: an upsert is repeated safely).
   */
  async putAll(
    entries: readonly ProviderScheduleEntry[],
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const index = TableIndexes.byMonth;
    for (let i = 0; i < entries.length; i += BATCH_WRITE_MAX_ITEMS) {
      const items = entries.slice(i, i + BATCH_WRITE_MAX_ITEMS).map((entry) => ({
        ...keys.entry(entry.kind, entry.id),
        entity: 'provider-schedule',
        ...entry,
        [index.partitionKey]: keys.listPartition(entry.kind),
        [index.sortKey]: `${entry.startsAt}#${entry.id}`,
        [TTL_ATTRIBUTE]: Math.floor(Date.parse(entry.syncedAt) / 1000) + ENTRY_TTL_SECONDS,
      }));
      await putBatch(
        this.#doc,
        this.tableName,
        items,
        { what: 'provider schedule entries' },
        options.signal ? { abortSignal: options.signal } : {},
      );
    }
  }

  /** Entries of one kind, latest date first. */
  async list(kind: ProviderScheduleKind, limit: number): Promise<ProviderScheduleEntry[]> {
    const index = TableIndexes.byMonth;
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: index.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.partitionKey },
        ExpressionAttributeValues: { ':pk': keys.listPartition(kind) },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (Items ?? []).map((item) => {
      const { endsAt, interval, transactionId, ...rest } = EntrySchema.parse(item);
      return {
        ...rest,
        ...(endsAt !== undefined && { endsAt }),
        ...(interval !== undefined && { interval }),
        ...(transactionId !== undefined && { transactionId }),
      };
    });
  }

  async setSyncStatus(status: SyncStatus): Promise<void> {
    await this.#doc.send(new PutCommand({ TableName: this.tableName, Item: { ...keys.sync, ...status } }));
  }

  /** Where an unfinished sync resumes; undefined when the last one finished. */
  async getCursor(): Promise<SyncCursor | undefined> {
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.cursor, ConsistentRead: true }),
    );
    const parsed = Item && Item.state === 'resume' ? CursorSchema.safeParse(Item) : undefined;
    return parsed?.success ? parsed.data : undefined;
  }

  /** Records where the sync resumes (`undefined`: it finished; written over, as the role only puts). */
  async setCursor(cursor: SyncCursor | undefined): Promise<void> {
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: cursor ? { ...keys.cursor, state: 'resume', ...cursor } : { ...keys.cursor, state: 'idle' },
      }),
    );
  }

  async getSyncStatus(): Promise<SyncStatus | undefined> {
    const { Item } = await this.#doc.send(new GetCommand({ TableName: this.tableName, Key: keys.sync }));
    return Item ? SyncStatusSchema.parse(Item) : undefined;
  }
}
