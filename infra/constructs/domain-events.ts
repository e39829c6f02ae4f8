import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DOMAIN_EVENT_SOURCE } from '../../lib/events/domain-events.js';
import { STORED_NAMES } from '../../lib/payouts/store/compact-names.js';
import type { PayoutFunction } from './payout-function.js';

export interface DomainEventsProps {
  readonly table: ITable;
  readonly bus: IEventBus;
  readonly publisher: PayoutFunction;
  readonly deadLetterQueue: IQueue;
  /** Statuses whose arrival is published (`PUBLISHED_OUTCOMES` of `lib/events/domain-events.ts`). */
  readonly publishedStatuses: readonly string[];
  /** Statement line kinds whose first write is published (`MISMATCH_LINE_KINDS` of `lib/events/domain-events.ts`). */
  readonly mismatchKinds: readonly string[];
}

/**
 * How the stream invokes the publisher: records per batch, and how often a batch that keeps reporting a
 * failure is retried before its records go to the DLQ (test/infra/handler-limits.test.ts proves a batch
 * publishes within these retries even when every PutEvents takes its whole deadline).
 */
export const DOMAIN_EVENT_STREAM = { batchSize: 25, retryAttempts: 20 } as const;

/**
 * The outbox: the table's stream feeds the publisher, which puts one domain event per payout outcome on
 * the bus. The stream is read in order (one shard reader, no bisecting); the handler reports the first
 * failed record so the batch resumes there, and a record that keeps failing lands in the DLQ (its stream
 * coordinates, for a replay from the table).
 */
export class DomainEvents extends Construct {
  constructor(scope: Construct, id: string, props: DomainEventsProps) {
    super(scope, id);
    const { publisher } = props;
    publisher.addEnvironment({ EVENT_BUS_NAME: props.bus.eventBusName });
    // The publisher may put its own domain events and nothing else: never an inbound `merchant.payouts`
    // request, which would be a payout instruction. EventBridge checks `events:source` per entry.
    publisher.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['events:PutEvents'],
        resources: [props.bus.eventBusArn],
        // AWS types `events:source` as ArrayOfString, and multivalued keys need a set operator (a plain
        // StringEquals never matches one in IAM's evaluation); Null: false refuses a request without a source.
        conditions: {
          'ForAllValues:StringEquals': { 'events:source': [DOMAIN_EVENT_SOURCE] },
          Null: { 'events:source': 'false' },
        },
      }),
    );
    publisher.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: DOMAIN_EVENT_STREAM.batchSize,
        maxBatchingWindow: Duration.seconds(1),
        parallelizationFactor: 1,
        bisectBatchOnError: false,
        reportBatchItemFailures: true,
        retryAttempts: DOMAIN_EVENT_STREAM.retryAttempts,
        maxRecordAge: Duration.hours(24),
        onFailure: new SqsDlq(props.deadLetterQueue),
        // Only payout items reaching a published status, and a statement's findings when first written, invoke the
        // publisher; audit, cap and idempotency items never do. The handler still checks that the status changed.
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: {
              NewImage: {
                entity: { S: FilterRule.isEqual('statement_line') },
                line: { M: { kind: { S: FilterRule.or(...props.mismatchKinds) } } },
              },
            },
          }),
          FilterCriteria.filter({
            eventName: FilterRule.or('INSERT', 'MODIFY'),
            dynamodb: {
              NewImage: {
                entity: { S: FilterRule.isEqual('payout') },
                status: { S: FilterRule.or(...props.publishedStatuses) },
              },
            },
          }),
          // Payout runs (lib/payout-runs/run-ends.ts): a run's payout cancelled ends its row too; a row recorded
          // refused; and every change of a run item (counted onto, materialised, cancelled, ended), which ends it
          // when every row has and then publishes its end event. Rows recording a payout, markers never invoke it.
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('MODIFY'),
            dynamodb: {
              NewImage: {
                entity: { S: FilterRule.isEqual('payout') },
                // `og`: the payout's origin under its stored name (lib/payouts/store/compact-names.ts).
                [STORED_NAMES.origin as string]: { S: FilterRule.isEqual('run') },
                status: { S: FilterRule.isEqual('cancelled') },
              },
            },
          }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('MODIFY'),
            dynamodb: {
              NewImage: {
                entity: { S: FilterRule.isEqual('payout-run-row') },
                failure: { M: FilterRule.exists() },
              },
            },
          }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('MODIFY'),
            dynamodb: { NewImage: { entity: { S: FilterRule.isEqual('payout-run') } } },
          }),
        ],
      }),
    );
  }
}
