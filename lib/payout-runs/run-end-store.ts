import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from '../shared/conditional-check.js';
import { DocumentClient, TransactWriteCommand, UpdateCommand } from '../shared/document-client.js';
import { commitRetryingConflicts } from '../shared/transaction-conflicts.js';
import { TableIndexes } from '../table/index.js';
import type { PayoutRun, RunEnds } from './model.js';
import { ATTENTION_ENDS, ROW_ENDS, type RowEnd } from './row-ends.js';
import { runKeys, runListing, runSchema } from './run-items.js';

const { workQueue, byStatus } = TableIndexes;

/** The run item's end counters as `RunEnds` (absent before the first row ended). */
export function runEndsOf(item: Readonly<Record<string, unknown>>): RunEnds | undefined {
  const num = (name: string) => (typeof item[name] === 'number' ? (item[name] as number) : 0);
  if (typeof item.endedRows !== 'number') return undefined;
  const byEnd: Partial<Record<RowEnd, number>> = {};
  for (const end of ROW_ENDS) if (num(`ended_${end}`) > 0) byEnd[end] = num(`ended_${end}`);
  return {
    rows: num('endedRows'),
    attention: num('endedAttention'),
    sentKobo: num('endedSentKobo'),
    failedKobo: num('endedFailedKobo'),
    byEnd,
  };
}

/** A stored run item as a `PayoutRun`, its end counters included. */
export function runOfItem(item: Readonly<Record<string, unknown>>): PayoutRun {
  const ends = runEndsOf(item);
  return { ...runSchema.parse(item), ...(ends && { ends }) };
}

/**
 * The writes that end runs (run-ends.ts): apart from `DynamoDbPayoutRunStore` so the sweep, which materialises
 * runs, does not carry them (its bundle is at its limit).
 */
export class RunEndStore {
  readonly #doc: DocumentClient;
  readonly #tableName: string;

  constructor(client: DynamoDBClient, tableName: string) {
    this.#doc = DocumentClient.from(client);
    this.#tableName = tableName;
  }

  /**
   * Counts one row's end onto its run, once: the row's end marker (put only if absent) and the run's counters in
   * one transaction, so a stream record delivered twice, or two sources of the same row's end (its payout's
   * cancel and the run's cancel), count it once. With `onlyWithoutPayout`, the row must have no payout recorded
   * (a cancelled run's row that never became one). False when it was counted already or does not qualify.
   */
  async countRowEnd(
    row: { readonly runId: string; readonly index: number; readonly amountKobo: number },
    end: RowEnd,
    at: string,
    options: { readonly onlyWithoutPayout?: boolean } = {},
  ): Promise<boolean> {
    const adds = ['endedRows :one', '#byEnd :one'];
    const values: Record<string, number | string> = { ':one': 1 };
    if (ATTENTION_ENDS.has(end)) adds.push('endedAttention :one');
    if (end === 'succeeded') adds.push('endedSentKobo :kobo');
    if (end === 'failed' || end === 'missed' || end === 'refused') adds.push('endedFailedKobo :kobo');
    if (adds.some((add) => add.endsWith(':kobo'))) values[':kobo'] = row.amountKobo;
    return commitRetryingConflicts(
      async () => {
        await this.#doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: this.#tableName,
                  Item: { ...runKeys.rowEnd(row.runId, row.index), entity: 'payout-run-row-end', end, at },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              {
                Update: {
                  TableName: this.#tableName,
                  Key: runKeys.run(row.runId),
                  UpdateExpression: `ADD ${adds.join(', ')}`,
                  ConditionExpression: 'attribute_exists(pk)',
                  ExpressionAttributeNames: { '#byEnd': `ended_${end}` },
                  ExpressionAttributeValues: values,
                },
              },
              ...(options.onlyWithoutPayout
                ? [
                    {
                      ConditionCheck: {
                        TableName: this.#tableName,
                        Key: runKeys.row(row.runId, row.index),
                        ConditionExpression:
                          'attribute_not_exists(payoutId) AND attribute_not_exists(failure)',
                      },
                    },
                  ]
                : []),
            ],
          }),
        );
        return true;
      },
      (reasons, error) => {
        if (reasons.includes('ConditionalCheckFailed')) return false;
        throw error;
      },
    );
  }

  /**
   * Records a run's end, once: conditional on its state as read, on its end not recorded yet and on every row
   * having ended (`endedRows` at least `count`). A cancelled run stays `cancelled` and gains `endedAt`; any other
   * moves to `to`. False when it was ended already or not every row has ended.
   */
  async endRun(
    run: Pick<PayoutRun, 'runId' | 'state' | 'count'>,
    to: PayoutRun['state'],
    at: string,
  ): Promise<boolean> {
    try {
      await this.#doc.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: runKeys.run(run.runId),
          UpdateExpression: 'SET #state = :to, #g1 = :g1, endedAt = :at, updatedAt = :at REMOVE #wqpk, #wqsk',
          ConditionExpression: '#state = :from AND attribute_not_exists(endedAt) AND endedRows >= :count',
          ExpressionAttributeNames: {
            '#state': 'state',
            '#g1': byStatus.partitionKey,
            '#wqpk': workQueue.partitionKey,
            '#wqsk': workQueue.sortKey,
          },
          ExpressionAttributeValues: {
            ':from': run.state,
            ':to': to,
            ':g1': runListing.statePartition(to),
            ':at': at,
            ':count': run.count,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
}
