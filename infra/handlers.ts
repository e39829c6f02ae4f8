import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { InboundEventType } from '../lib/events/schemas.js';
import { TableIndexes } from '../lib/payouts/store/table-design.js';
import type { StageConfig } from './config/stage-config.js';
import { SUBMIT_WORKER_TIMEOUT_SECONDS } from './config/submission.js';
import { PROJECT_ROOT, type TableAccess } from './constructs/payout-function.js';

/** What invokes a handler. */
export type HandlerTrigger =
  | { readonly kind: 'api' }
  | { readonly kind: 'schedule'; readonly every: (config: StageConfig) => Duration }
  | { readonly kind: 'event'; readonly detailType: InboundEventType }
  | { readonly kind: 'stream' }
  /** The submission queue's SQS event source (`infra/constructs/submission-queue.ts`). */
  | { readonly kind: 'queue'; readonly queue: 'submissions' };

/** How one file of `functions/` is deployed: its trigger and exactly the data and secrets it touches. */
export interface HandlerSpec {
  readonly description: string;
  readonly trigger: HandlerTrigger;
  readonly table?: { readonly access: TableAccess; readonly indexes: readonly string[] };
  /** Calls the payments provider, so it reads the token and PIN secret. */
  readonly provider: boolean;
  readonly timeout?: Duration;
  /** Queues it sends to: SUBMIT_QUEUE_URL and sqs:SendMessage on that queue only. */
  readonly sendsTo?: readonly 'submissions'[];
}

const { byStatus, byMonth, workQueue } = TableIndexes;
const everyMinute = () => Duration.minutes(1);

/**
 * Every handler in `functions/`, keyed by file name. Adding a handler is one entry here; the stack wires
 * the trigger, the least-privilege grants, its DLQ and its alarms. A test fails when a file in
 * `functions/` has no entry, so no handler ships unwired.
 */
export const HANDLERS = {
  api: {
    description: 'Ops API (HTTP API, IAM auth): payouts, approvals, controls, refunds, provider views',
    trigger: { kind: 'api' },
    // Lists payouts by status (gsi1) or by month (gsi2); submits at once, so it calls the provider.
    table: { access: 'readWrite', indexes: [byStatus.indexName, byMonth.indexName] },
    provider: true,
    timeout: Duration.seconds(29),
  },
  'sweep-due-payouts': {
    description: 'Every minute: release due scheduled payouts and hand pending ones to the submission queue',
    trigger: { kind: 'schedule', every: everyMinute },
    table: { access: 'readWrite', indexes: [workQueue.indexName] },
    // Refunds are still sent by the sweep itself; payouts go to the workers through the queue.
    provider: true,
    sendsTo: ['submissions'],
    // runSweep stops starting payouts 20 s before the deadline; 2 minutes leaves room for a backlog.
    timeout: Duration.minutes(2),
  },
  'submit-payouts': {
    description:
      'SQS (submission queue): submit the payouts the sweeper enqueued, a batch at once, each once',
    trigger: { kind: 'queue', queue: 'submissions' },
    // Reads and claims payouts by key; the work queue is the sweeper's.
    table: { access: 'readWrite', indexes: [] },
    provider: true,
    // See SUBMIT_WORKER_TIMEOUT_SECONDS; the queue's visibility timeout is six times this.
    timeout: Duration.seconds(SUBMIT_WORKER_TIMEOUT_SECONDS),
  },
  'reconcile-payouts': {
    description: 'Every minute: decide payouts whose outcome is unknown, by looking them up, never resending',
    trigger: { kind: 'schedule', every: everyMinute },
    table: { access: 'readWrite', indexes: [workQueue.indexName] },
    provider: true,
    timeout: Duration.minutes(2),
  },
  'poll-settlements': {
    description: 'On a schedule: pay out settlements no event has decided yet, per the settlement policy',
    trigger: { kind: 'schedule', every: (config) => Duration.minutes(config.settlementPollMinutes) },
    // Settlement decisions and payouts are read and written by key; the settlements come from the provider.
    table: { access: 'readWrite', indexes: [] },
    provider: true,
    timeout: Duration.minutes(2),
  },
  'sync-provider-schedules': {
    description: 'On a schedule: synchronise payout schedules kept at the provider',
    trigger: { kind: 'schedule', every: (config) => Duration.minutes(config.scheduleSyncMinutes) },
    table: { access: 'readWrite', indexes: [workQueue.indexName] },
    provider: true,
    timeout: Duration.minutes(2),
  },
  'payout-requested': {
    description: 'EventBridge "Payout Requested": create the payout idempotently and submit it',
    trigger: { kind: 'event', detailType: InboundEventType.PayoutRequested },
    table: { access: 'readWrite', indexes: [] },
    provider: true,
    timeout: Duration.seconds(60),
  },
  'settlement-available': {
    description: 'EventBridge "Settlement Available": pay the settlement out per the settlement policy',
    trigger: { kind: 'event', detailType: InboundEventType.SettlementAvailable },
    table: { access: 'readWrite', indexes: [] },
    provider: true,
    timeout: Duration.seconds(60),
  },
  'publish-domain-events': {
    description: 'DynamoDB Streams -> EventBridge: one domain event per payout outcome',
    trigger: { kind: 'stream' },
    provider: false,
    timeout: Duration.seconds(60),
  },
} as const satisfies Record<string, HandlerSpec>;
export type HandlerName = keyof typeof HANDLERS;

/** The registered handlers whose source exists: helpers add files to `functions/` while others are deployed. */
export function presentHandlers(root = PROJECT_ROOT): HandlerName[] {
  return (Object.keys(HANDLERS) as HandlerName[]).filter((name) =>
    existsSync(join(root, 'functions', `${name}.ts`)),
  );
}
