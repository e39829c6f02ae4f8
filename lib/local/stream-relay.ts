import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { type EventPublisher, publishStreamBatch, type StreamBookkeeper } from '../events/index.js';
import type { Logger } from '../shared/logger.js';
import { localAwsConfig } from './dynamodb-local.js';

export interface StreamRelayOptions {
  /** The bookkeeping the publisher in AWS does on each record (payout runs' ends: domain-event-runtime.ts). */
  readonly bookkeeper?: StreamBookkeeper;
  /** Sees each page of records as read (a test re-delivers them, as the stream may). */
  readonly tap?: (records: readonly Parameters<typeof publishStreamBatch>[0][number][]) => void;
}

/**
 * Local stand-in for the Lambda event source mapping that feeds the table's stream to the domain-event
 * publisher in AWS: it reads DynamoDB Local's stream and runs the very same `publishStreamBatch`.
 */
export class StreamRelay {
  readonly #iterators = new Map<string, string | null>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;

  private constructor(
    private readonly streams: DynamoDBStreamsClient,
    private readonly streamArn: string,
    private readonly publisher: EventPublisher,
    private readonly logger: Logger,
    private readonly options: StreamRelayOptions,
  ) {}

  static async forTable(
    dynamoDb: DynamoDBClient,
    endpoint: string,
    tableName: string,
    publisher: EventPublisher,
    logger: Logger,
    options: StreamRelayOptions = {},
  ): Promise<StreamRelay> {
    const { Table } = await dynamoDb.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.LatestStreamArn) throw new Error(`table ${tableName} has no stream`);
    const streams = new DynamoDBStreamsClient({ endpoint, ...localAwsConfig });
    return new StreamRelay(streams, Table.LatestStreamArn, publisher, logger, options);
  }

  /** Reads every record available now on every shard and publishes its events. Returns how many were published. */
  async pollOnce(): Promise<number> {
    const { StreamDescription } = await this.streams.send(
      new DescribeStreamCommand({ StreamArn: this.streamArn }),
    );
    let published = 0;
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId;
      if (!shardId) continue;
      if (!this.#iterators.has(shardId)) {
        const { ShardIterator } = await this.streams.send(
          new GetShardIteratorCommand({
            StreamArn: this.streamArn,
            ShardId: shardId,
            ShardIteratorType: 'TRIM_HORIZON',
          }),
        );
        this.#iterators.set(shardId, ShardIterator ?? null);
      }
      published += await this.#drainShard(shardId);
    }
    return published;
  }

  async #drainShard(shardId: string): Promise<number> {
    let published = 0;
    for (;;) {
      const iterator = this.#iterators.get(shardId);
      if (!iterator) return published;
      const page = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
      const records = page.Records ?? [];
      this.options.tap?.(records);
      const result = await publishStreamBatch(
        records,
        this.publisher,
        this.logger,
        undefined,
        this.options.bookkeeper,
      );
      published += result.published;
      const [firstFailed] = result.failedSequenceNumbers;
      if (firstFailed) {
        // Like the Lambda partial batch response: resume at the first record that failed.
        const { ShardIterator } = await this.streams.send(
          new GetShardIteratorCommand({
            StreamArn: this.streamArn,
            ShardId: shardId,
            ShardIteratorType: 'AT_SEQUENCE_NUMBER',
            SequenceNumber: firstFailed,
          }),
        );
        this.#iterators.set(shardId, ShardIterator ?? null);
        return published;
      }
      this.#iterators.set(shardId, page.NextShardIterator ?? null);
      if (records.length === 0) return published;
    }
  }

  /** Polls every `intervalMs` until stopped; a failed poll is logged and retried on the next tick. */
  start(intervalMs = 500): void {
    const schedule = () => {
      this.#timer = setTimeout(() => {
        this.#running = this.#tick().then(() => {
          if (this.#timer) schedule();
        });
      }, intervalMs);
    };
    schedule();
  }

  async #tick(): Promise<void> {
    try {
      await this.pollOnce();
    } catch (error) {
      this.logger.error('stream relay poll failed', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    this.streams.destroy();
  }
}
