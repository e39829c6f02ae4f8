import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DOMAIN_EVENT_SOURCE } from '../../lib/events/domain-events.js';
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
  /**
   * Entities whose entering or leaving `pending_approval` is published (`APPROVAL_ENTITIES`); the payout run, whose
   * field is `state`, is matched on its entity alone (five filters is Lambda's default limit).
   */
  readonly approvalEntities: readonly string[];
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
    const statusEntities = props.approvalEntities.filter((entity) => entity !== 'payout-run');
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
                // `cancelled` publishes nothing; a run's payout cancelled ends its row (lib/payout-runs/run-ends.ts).
                status: { S: FilterRule.or(...props.publishedStatuses, 'cancelled') },
              },
            },
          }),
          // An instruction entering `pending_approval` (Approval Requested) or leaving it (Approval Decided).
          ...(['NewImage', 'OldImage'] as const).map((image) =>
            FilterCriteria.filter({
              eventName: FilterRule.or('INSERT', 'MODIFY'),
              dynamodb: {
                [image]: {
                  entity: { S: FilterRule.or(...statusEntities) },
                  status: { S: FilterRule.isEqual('pending_approval') },
                },
              },
            }),
          ),
          // Payout runs (lib/payout-runs/run-ends.ts): every change of a run item (its approval, counts onto it,
          // materialised, cancelled, ended: it ends when every row has, then publishes its end event) and of a
          // run's rows (one recorded refused ends). Lambda allows five filters by default, so the rows and the
          // run share this one and the bookkeeper keeps only what concerns it.
          FilterCriteria.filter({
            eventName: FilterRule.or('INSERT', 'MODIFY'),
            dynamodb: { NewImage: { entity: { S: FilterRule.or('payout-run', 'payout-run-row') } } },
          }),
        ],
      }),
    );
  }
}
