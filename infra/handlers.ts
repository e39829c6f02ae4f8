import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { InboundEventType } from '../lib/events/schemas.js';
import { NOTIFIED_EVENTS } from '../lib/notifications/notification.js';
import type { PayoutOrigin } from '../lib/payouts/model.js';
import { TableIndexes } from '../lib/table/index.js';
import { KeyPrefix } from './config/key-prefixes.js';
import type { StageConfig } from './config/stage-config.js';
import { SUBMIT_WORKER_TIMEOUT_SECONDS } from './config/submission.js';
import { PROJECT_ROOT, type TableAccess } from './constructs/payout-function.js';

/** What invokes a handler. */
export type HandlerTrigger =
  | { readonly kind: 'api' }
  | { readonly kind: 'schedule'; readonly every: (config: StageConfig) => Duration }
  | { readonly kind: 'event'; readonly detailType: InboundEventType }
  /** An EventBridge rule on the engine's own domain events (`merchant.payouts.engine`) of these detail types. */
  | { readonly kind: 'domain-event'; readonly detailTypes: readonly string[] }
  | { readonly kind: 'stream' }
  /** The submission queue's SQS event source (`infra/constructs/submission-queue.ts`). */
  | { readonly kind: 'queue'; readonly queue: 'submissions' };

/**
 * Which of the provider's two secrets a handler may read. The PIN rides only on wallet transfers, credits and
 * debits (lib/provider/resources/wallets.ts), so only a handler that may send a payout from a wallet holds it;
 * the others never name its secret, have no grant on it, and are refused by its resource policy.
 */
export const ProviderAccess = {
  /** Never calls the provider. */
  None: 'none',
  /** Calls the provider (reads, lookups, bank transfers) but never sends from a wallet: the token only. */
  Token: 'token',
  /** Sends payouts, wallet ones included: the token and the PIN. */
  TokenAndPin: 'token-and-pin',
} as const;
export type ProviderAccess = (typeof ProviderAccess)[keyof typeof ProviderAccess];

/** How one file of `functions/` is deployed: its trigger and exactly the data and secrets it touches. */
export interface HandlerSpec {
  readonly description: string;
  readonly trigger: HandlerTrigger;
  readonly table?: {
    readonly access: TableAccess;
    readonly indexes: readonly string[];
    /** Also dynamodb:BatchWriteItem on the table, for a store that writes with BatchWriteCommand. */
    readonly batchWrites?: boolean;
    /** Also Query on the table itself: reads item collections (a payout's or a rule's history) by key. */
    readonly queriesTable?: boolean;
    /** Also DeleteItem on the table: a settlement decision removes the settlement's deferral in its transaction. */
    readonly deletesItems?: boolean;
    /**
     * The partition keys (infra/config/key-prefixes.ts) of every item it puts, updates or deletes: its writes are
     * refused on any other (`dynamodb:LeadingKeys`). Required with any write action.
     */
    readonly writes?: readonly string[];
    /** The partition keys of the items its transactions check without writing (ConditionCheckItem). */
    readonly checks?: readonly string[];
  };
  readonly provider: ProviderAccess;
  readonly timeout?: Duration;
  /**
   * Makes OpenTelemetry spans (lib/shared/tracing.ts): given the stage's ADOT layer when its config names one
   * (`openTelemetry`, docs/operations.md "Traces").
   */
  readonly traces?: true;
  /**
   * Queues it sends to: SUBMIT_QUEUE_URL and sqs:SendMessage on that queue only. It is deployed only with the
   * queue's consumer (`assertDeployable`).
   */
  readonly sendsTo?: readonly 'submissions'[];
  /**
   * Granted actions the IAM proof (test/infra/iam-proof.test.ts) never sees this handler use, each with the
   * reason it stays. The proof fails on an unexercised grant missing here and on a reason no longer needed.
   */
  readonly unexercisedGrants?: Readonly<Record<string, string>>;
  /** Publishes to the notification topic and reads the webhook secret (NOTIFY_TOPIC_ARN, NOTIFY_WEBHOOK_SECRET_ID). */
  readonly notifies?: true;
  /**
   * Manages the operators' user pool (the admin routes `/operators`): OPS_OPERATOR_USER_POOL_ID and exactly these
   * `cognito-idp` actions on that pool's ARN (infra/stacks/payouts-stack.ts), no other pool and no other action.
   */
  readonly managesOperators?: readonly string[];
}

const { byStatus, byMonth, workQueue } = TableIndexes;
const K = KeyPrefix;
/** What creating a payout of `origin` writes: the payout (and its audit items), its idempotency record. */
const createsPayouts = (origin: PayoutOrigin) => [K.payout, K.payoutIdempotency(origin)];
/** What deciding a settlement writes: its decision or deferral, the cutoff (its first caller), its payout. */
const decidesSettlements = [K.settlement, K.settlementConfig, ...createsPayouts('settlement')];
const everyMinute = () => Duration.minutes(1);

/**
 * What CDK grants with a Lambda on-failure destination or stream DLQ (`queue.grantSendMessages`) beyond the
 * sqs:SendMessage Lambda uses (the IAM proof checks that one): kept rather than hand-writing CDK's grant.
 */
const DLQ_GRANT_EXTRAS = {
  'sqs:GetQueueAttributes': "Part of CDK's SQS destination grant; Lambda only sends to the DLQ.",
  'sqs:GetQueueUrl': "Part of CDK's SQS destination grant; Lambda only sends to the DLQ.",
} as const;

/**
 * Every handler in `functions/`, keyed by file name. Adding a handler is one entry here; the stack wires
 * the trigger, the least-privilege grants, its DLQ and its alarms. A test fails when a file in
 * `functions/` has no entry, so no handler ships unwired.
 */
/**
 * What every ops API function shares: API Gateway's trigger and the request deadline, 29 s, inside API Gateway's
 * 30 s (lib/api/request-deadline.ts).
 */
const OPS_API = { trigger: { kind: 'api' }, timeout: Duration.seconds(29), traces: true } as const;

export const HANDLERS = {
  // The ops API, one function per group of routes (lib/api/functions/index.ts), each granted what its own routes
  // use (OPS_API above).
  'api-payouts': {
    description:
      "Ops API (HTTP API, IAM auth): a payout's life (create, list, read, cancel, approve, resolve), controls",
    ...OPS_API,
    // Lists payouts by status (gsi1) or by month (gsi2); reads a payout's history by key (Query on the table).
    // A payout's claim reads the pause after it committed (GetItem), so no ConditionCheck.
    table: {
      access: 'readWriteNoPauseCheck',
      indexes: [byStatus.indexName, byMonth.indexName],
      queriesTable: true,
      // Its payouts and their cap counters; the controls item (pause, resume) is written by this function alone.
      writes: [...createsPayouts('api'), K.dailyCap, K.controls],
    },
    // Submits payouts at once (POST /payouts, approvals), wallet payouts included.
    provider: ProviderAccess.TokenAndPin,
  },
  'api-recurrences': {
    description:
      "Ops API (HTTP API, IAM auth): recurring payouts, the provider's schedules, future payouts, the approvals queue",
    ...OPS_API,
    // Lists rules, payouts, refunds and bulk corrections by status (gsi1) or month (gsi2), the provider's schedules
    // by month (gsi2); reads a rule's history by key (Query on the table).
    table: {
      access: 'readWriteNoPauseCheck',
      indexes: [byStatus.indexName, byMonth.indexName],
      queriesTable: true,
      // Rules, their occurrences and audit; cancelling a rule cancels its still-scheduled payouts (no cap: a
      // scheduled payout holds none).
      writes: [K.recurrence, K.recurrenceIdempotency, K.payout],
    },
    // No route of it calls the provider (the schedules are the copy sync-provider-schedules keeps): no secret.
    provider: ProviderAccess.None,
  },
  'api-operations': {
    description: "Ops API (HTTP API, IAM auth): refunds, the provider's views, health",
    ...OPS_API,
    // Claims refunds (the claim checks the pause item: ConditionCheck); lists refunds by status or month.
    table: {
      access: 'readWrite',
      indexes: [byStatus.indexName, byMonth.indexName],
      queriesTable: true,
      writes: [K.refund, K.refundedTotal, K.refundIdempotency, K.dailyCap],
      checks: [K.controls],
    },
    // Sends refunds and reads the provider's views: never from a wallet.
    provider: ProviderAccess.Token,
  },
  'api-settlements': {
    description: 'Ops API (HTTP API, IAM auth): instant settlements',
    ...OPS_API,
    // Lists decisions and deferrals by state (gsi1) and settlement payouts by month (gsi2). A deferral is recorded
    // only while no decision exists (ConditionCheck); a decision deletes the settlement's deferral
    // (lib/settlement/store/dynamodb-decision-store.ts) in the transaction that records it.
    table: {
      access: 'readWrite',
      indexes: [byStatus.indexName, byMonth.indexName],
      deletesItems: true,
      // Pays the settlement out at once: its payout claims the cap.
      writes: [...decidesSettlements, K.dailyCap],
      checks: [K.settlement],
    },
    // Pays settlements out by bank transfer: never from a wallet.
    provider: ProviderAccess.Token,
  },
  'api-corrections': {
    description: 'Ops API (HTTP API, IAM auth): bulk payout items, their corrections, correction jobs',
    ...OPS_API,
    // Lists bulk items and corrections by status (gsi1) or month (gsi2); reads bulk-item histories by key (Query on
    // the table); stores a correction job's rows 25 per BatchWriteItem (lib/bulk-corrections/store/dynamodb-job-store.ts). A
    // correction's claim checks no pause item in its transaction: no ConditionCheck.
    table: {
      access: 'readWriteNoPauseCheck',
      indexes: [byStatus.indexName, byMonth.indexName],
      queriesTable: true,
      batchWrites: true,
      // A correction reserves its amount on the main wallet's cap counter with its claim.
      writes: [K.bulkItem, K.correctionJob, K.correctionJobIdempotency, K.dailyCap],
    },
    // Reads and corrects the provider's bulk payout items (the token only).
    provider: ProviderAccess.Token,
    // Hands correction jobs to the queue workers (POST /bulk-payout-items/corrections): docs/bulk-corrections.md.
    sendsTo: ['submissions'],
    unexercisedGrants: {
      'sqs:SendMessage':
        'SendMessageBatch of a correction job (lib/payouts/adapters/sqs-submission-queue.ts) is a signed fetch, not an SDK client, so the proof does not observe it; test/infra/submission-queue.test.ts checks who may send.',
      'sqs:GetQueueAttributes': "Part of CDK's grantSendMessages; the API only sends.",
      'sqs:GetQueueUrl': "Part of CDK's grantSendMessages; the API only sends.",
    },
  },
  'api-dead-letters': {
    description: 'Ops API (HTTP API, IAM auth): dead letters (list, replay, discard)',
    ...OPS_API,
    // Lists dead letters by status (gsi1) or month (gsi2). A replay runs the inbound handler: a Payout Requested
    // creates and submits the payout, a Settlement Available decides the settlement (its deferral recorded only
    // while no decision exists, deleted by the decision: lib/settlement/store/dynamodb-decision-store.ts).
    table: {
      access: 'readWrite',
      indexes: [byStatus.indexName, byMonth.indexName],
      deletesItems: true,
      // The letters; a replay writes what payout-requested or settlement-available would (submitting at once).
      writes: [K.deadLetter, ...createsPayouts('event'), ...decidesSettlements, K.dailyCap],
      checks: [K.settlement],
    },
    // A replayed Payout Requested creates and submits the payout, wallet payouts included.
    provider: ProviderAccess.TokenAndPin,
    unexercisedGrants: {
      'dynamodb:ConditionCheckItem':
        "A replayed Settlement Available deferred outside the allowed hours (lib/settlement/store/dynamodb-decision-store.ts); in the IAM proof api-settlements' POST /instant-settlements runs that SettlementService path.",
      'dynamodb:DeleteItem':
        "Deciding a replayed Settlement Available deletes the settlement's deferral item (see above).",
    },
  },
  'api-payout-runs': {
    description:
      'Ops API (HTTP API, IAM auth): payout runs (a file of payouts approved once, each paid once)',
    ...OPS_API,
    // Lists runs by state (gsi1) or all (gsi2); reads a run's rows and its file records by key (Query on the table);
    // stores a run's rows 25 per BatchWriteItem (lib/payout-runs/run-store.ts). Reads its rows' payouts by key.
    table: {
      access: 'readWriteNoPauseCheck',
      indexes: [byStatus.indexName, byMonth.indexName],
      queriesTable: true,
      batchWrites: true,
      // The run, its rows, file records and key; cancelling a run cancels its payouts not yet claimed (no cap:
      // an unclaimed payout holds none). Creates no payout: the sweep does.
      writes: [K.payoutRun, K.payoutRunIdempotency, K.payout],
    },
    // Never calls the provider: the rows are sent by the workers as payouts.
    provider: ProviderAccess.None,
  },
  'api-statements': {
    description:
      'Ops API (HTTP API, IAM auth): the books: daily statements (list, read, lines, CSV, a re-run) and the payouts export',
    ...OPS_API,
    // Lists reports (gsi1) and pages a day's lines (Query on the table); the export reads payouts by month (gsi2);
    // a re-run reads the payouts the records name (GetItem), those paid on the day (gsi1) and those created on it
    // (gsi2, the payout totals), the refunds the refund records name (GetItem) and those accepted on the day
    // (gsi1), and moves
    // one paid twice to needs_review (the engine's transition: the payout, its audit, the cap counter the double
    // payment counts again).
    table: {
      access: 'readWriteNoPauseCheck',
      indexes: [byStatus.indexName, byMonth.indexName],
      queriesTable: true,
      // A re-run writes the day's lines 25 per BatchWriteItem (lib/statements/store.ts).
      batchWrites: true,
      writes: [K.statement, K.payout, K.dailyCap],
    },
    unexercisedGrants: {
      'dynamodb:UpdateItem':
        "Only a payout found paid twice moving to needs_review (the engine's transition, its cap counter); test/statements/daily-statement.test.ts runs that path against DynamoDB Local.",
    },
    // A re-run lists the provider's wallet transactions: the token only, never from a wallet.
    provider: ProviderAccess.Token,
  },
  'api-operators': {
    description:
      'Ops API (HTTP API, IAM auth): operators of the user pool (list, invite, grant, confirm, revoke, disable, enable), for admins',
    ...OPS_API,
    // Each change of access is recorded in the operator's audit in one transaction with its proposal and the
    // disabled marker (Put; an enable Deletes the marker); reads an operator's audit and proposals by key (Query on
    // the table). Every API function reads the marker (GetItem) to refuse a disabled operator's tokens.
    table: {
      access: 'copy',
      indexes: [],
      queriesTable: true,
      deletesItems: true,
      writes: [K.operator, K.operatorAccess],
    },
    provider: ProviderAccess.None,
    // lib/operators/cognito-directory.ts, one action per call it makes; the pool's ARN only.
    managesOperators: [
      'cognito-idp:ListUsers',
      'cognito-idp:ListUsersInGroup',
      'cognito-idp:AdminGetUser',
      'cognito-idp:AdminListGroupsForUser',
      'cognito-idp:AdminCreateUser',
      'cognito-idp:AdminAddUserToGroup',
      'cognito-idp:AdminRemoveUserFromGroup',
      'cognito-idp:AdminDisableUser',
      'cognito-idp:AdminEnableUser',
    ],
  },
  'api-docs': {
    description:
      'Ops API (HTTP API, IAM auth): the OpenAPI document, and the 404 problem for undeclared routes',
    ...OPS_API,
    // Serves a document bundled with it: no table, no secret, no provider.
    provider: ProviderAccess.None,
  },
  'sweep-due-payouts': {
    description: 'Every minute: release due scheduled payouts and hand pending ones to the submission queue',
    trigger: { kind: 'schedule', every: everyMinute },
    // Everything it reads comes from the work queue (gsi3) or by key: materialising a recurring payout reads
    // each occurrence with GetItem. Materialising a payout run reads a page of its rows (Query on the table).
    table: {
      access: 'readWrite',
      indexes: [workQueue.indexName],
      queriesTable: true,
      // Materialises recurring rules into payouts, releases scheduled payouts (claiming their cap), sends and
      // records refunds (their claim checks the pause), hands correction jobs the queue refused to it again.
      writes: [
        K.recurrence,
        ...createsPayouts('schedule'),
        K.dailyCap,
        K.refund,
        K.refundedTotal,
        K.correctionJob,
        // Turns payout runs' rows into payouts (lib/payout-runs), recording each on its row.
        K.payoutRun,
        ...createsPayouts('run'),
      ],
      checks: [K.controls],
    },
    // Sends refunds recorded but not yet sent (the token). Payouts go to the submission queue, whose workers
    // send them; the IAM proof found the sweeper never reading the PIN it was granted.
    provider: ProviderAccess.Token,
    sendsTo: ['submissions'],
    // runSweep stops starting payouts 20 s before the deadline; 2 minutes leaves room for a backlog.
    timeout: Duration.minutes(2),
    traces: true,
    unexercisedGrants: {
      ...DLQ_GRANT_EXTRAS,
    },
  },
  'submit-payouts': {
    description:
      'SQS (submission queue): submit the payouts the sweeper enqueued and work the correction-job rows the API enqueued, each once',
    trigger: { kind: 'queue', queue: 'submissions' },
    // Reads and claims payouts by key; the work queue is the sweeper's. Claims no refund: no pause ConditionCheck.
    table: {
      access: 'readWriteNoPauseCheck',
      indexes: [],
      // Claims and records payouts it never creates; works correction-job rows; paces the provider.
      writes: [K.payout, K.dailyCap, K.correctionJob, K.bulkItem, K.rateLimiter],
    },
    // Sends every kind of payout, wallet payouts (which carry the PIN) included.
    provider: ProviderAccess.TokenAndPin,
    traces: true,
    // See SUBMIT_WORKER_TIMEOUT_SECONDS; the queue's visibility timeout is six times this.
    timeout: Duration.seconds(SUBMIT_WORKER_TIMEOUT_SECONDS),
    unexercisedGrants: {
      'sqs:ChangeMessageVisibility':
        "Part of CDK's grant to an SQS event source; the worker also uses it to hand messages back for a prompt redelivery (lib/jobs/hand-back.ts), a signed fetch the proof does not observe.",
      'sqs:GetQueueUrl': "Part of CDK's grant to an SQS event source; the poller addresses the queue by ARN.",
    },
  },
  'reconcile-payouts': {
    description: 'Every minute: decide payouts whose outcome is unknown, by looking them up, never resending',
    trigger: { kind: 'schedule', every: everyMinute },
    // Work queue (gsi3) for the payouts to decide; by status (gsi1) to count those still in needs_review for the
    // alarm (the IAM proof found every run denied without it).
    table: {
      access: 'decide',
      indexes: [workQueue.indexName, byStatus.indexName],
      // Records outcomes of payouts it never creates; a failure releases the cap. Its look-ups take slots of the
      // workers' pacer (lib/runtime/engines.ts, reconcilingEngineOf).
      writes: [K.payout, K.dailyCap, K.rateLimiter],
    },
    // Looks payouts up at the provider; never sends one.
    provider: ProviderAccess.Token,
    timeout: Duration.minutes(2),
    unexercisedGrants: DLQ_GRANT_EXTRAS,
  },
  'poll-settlements': {
    description: 'On a schedule: pay out settlements no event has decided yet, per the settlement policy',
    trigger: { kind: 'schedule', every: (config) => Duration.minutes(config.settlementPollMinutes) },
    // Settlement decisions and payouts are read and written by key; the settlements come from the provider.
    // Deciding a settlement deletes its deferral item, and a deferral is recorded only while no decision exists
    // (lib/settlement/store/dynamodb-decision-store.ts; both found by the IAM proof).
    table: {
      access: 'decideSettlements',
      indexes: [],
      deletesItems: true,
      // Its payouts are created pending, for the workers: it claims no cap.
      writes: decidesSettlements,
      checks: [K.settlement],
    },
    // Lists settlements and hands each payout to the submission workers: it sends no money itself.
    provider: ProviderAccess.Token,
    sendsTo: ['submissions'],
    // Four minutes: a settlement is decided only with POLL_STOP_STARTING_BEFORE_DEADLINE_MS (172 s) left
    // (lib/jobs/poll-settlements.ts), which leaves 68 s to decide in; shorter than prod's 5-minute poll interval.
    timeout: Duration.minutes(4),
    unexercisedGrants: DLQ_GRANT_EXTRAS,
  },
  'reconcile-statements': {
    description:
      "Hourly: once the stage's statement time has passed, reconcile the day before against the provider's wallet records",
    trigger: { kind: 'schedule', every: () => Duration.hours(1) },
    // Reads the report (GetItem), the payouts the records name (GetItem), those paid on the day (gsi1) and
    // those created on it (gsi2, the payout totals), the refunds the refund records name (GetItem) and those
    // accepted on the day (gsi1).
    table: {
      access: 'readWriteNoPauseCheck',
      indexes: [byStatus.indexName, byMonth.indexName],
      // The report and its lines; a payout paid twice goes to needs_review through the engine's transition, which
      // counts the double payment on the cap again.
      writes: [K.statement, K.payout, K.dailyCap],
      // Which lines the day already has (a Query of its partition), then the lines 25 per BatchWriteItem.
      queriesTable: true,
      batchWrites: true,
    },
    // Lists the provider's wallet transactions; never sends money.
    provider: ProviderAccess.Token,
    // Ten minutes: no unit of work starts with less than STATEMENT_STOP_STARTING_BEFORE_DEADLINE_MS (55 s) left
    // (lib/jobs/statement-reconciliation.ts); a day cut short is stored incomplete and redone at the next tick.
    timeout: Duration.minutes(10),
    unexercisedGrants: {
      ...DLQ_GRANT_EXTRAS,
      'dynamodb:UpdateItem':
        "Only a payout found paid twice moving to needs_review (the engine's transition, its cap counter); test/statements/daily-statement.test.ts runs that path against DynamoDB Local.",
    },
  },
  'sync-provider-schedules': {
    description: 'On a schedule: synchronise payout schedules kept at the provider',
    trigger: { kind: 'schedule', every: (config) => Duration.minutes(config.scheduleSyncMinutes) },
    // lib/provider-schedules/store.ts upserts the provider's entries 25 at a time with BatchWriteItem (the
    // IAM proof, test/infra/iam-proof.test.ts, found the sync denied without it).
    // It only copies: the provider's entries with BatchWriteItem, the sync status with PutItem; it reads (GetItem)
    // only its cursor, where a sync stopped before its deadline resumes. Reading the view (and our own schedules
    // to flag) is the API's work.
    table: { access: 'copy', indexes: [], batchWrites: true, writes: [K.providerSchedule] },
    // Reads the provider's own schedules; never sends money.
    provider: ProviderAccess.Token,
    timeout: Duration.minutes(2),
    unexercisedGrants: DLQ_GRANT_EXTRAS,
  },
  'payout-requested': {
    description: 'EventBridge "Payout Requested": create the payout idempotently and submit it',
    trigger: { kind: 'event', detailType: InboundEventType.PayoutRequested },
    table: {
      access: 'readWriteNoPauseCheck',
      indexes: [],
      // An event it cannot handle is dead-lettered (lib/events/dead-letter.ts).
      writes: [...createsPayouts('event'), K.dailyCap, K.deadLetter],
    },
    // Creates the requested payout and submits it at once, wallet payouts included.
    provider: ProviderAccess.TokenAndPin,
    timeout: Duration.seconds(60),
    unexercisedGrants: DLQ_GRANT_EXTRAS,
  },
  'settlement-available': {
    description: 'EventBridge "Settlement Available": pay the settlement out per the settlement policy',
    trigger: { kind: 'event', detailType: InboundEventType.SettlementAvailable },
    // Deciding a settlement deletes its deferral item, and a deferral is recorded only while no decision exists
    // (lib/settlement/store/dynamodb-decision-store.ts; both found by the IAM proof).
    table: {
      access: 'decideSettlements',
      indexes: [],
      deletesItems: true,
      writes: [...decidesSettlements, K.deadLetter],
      checks: [K.settlement],
    },
    // Reads the provider's settlements and hands the payout to the submission workers: it sends no money itself.
    provider: ProviderAccess.Token,
    sendsTo: ['submissions'],
    timeout: Duration.seconds(60),
    unexercisedGrants: DLQ_GRANT_EXTRAS,
  },
  'health-canary': {
    description:
      'On a schedule: the deep health check (table, provider credentials and token) as a metric that alarms',
    trigger: { kind: 'schedule', every: (config) => Duration.minutes(config.healthCanaryMinutes) },
    // Reads the controls item (lib/api/health.ts); writes nothing.
    table: { access: 'read', indexes: [] },
    // One provider read call with the token; it never sends money.
    provider: ProviderAccess.Token,
    timeout: Duration.seconds(30),
    unexercisedGrants: DLQ_GRANT_EXTRAS,
  },
  'notify-approvers': {
    description:
      'EventBridge (engine events): tell people an instruction waits for approval or was decided, a payout needs review or was paid twice, a statement mismatched',
    trigger: { kind: 'domain-event', detailTypes: NOTIFIED_EVENTS },
    // Only its delivery markers, claimed and recorded with conditional UpdateItem (lib/notifications/delivery-marker.ts).
    table: { access: 'mark', indexes: [], writes: [K.notification] },
    provider: ProviderAccess.None,
    // Two deliveries of 5 s each at most, and the marker's writes.
    timeout: Duration.seconds(30),
    // Publishes to the notification topic and reads the webhook secret (infra/constructs/notifications.ts).
    notifies: true,
    unexercisedGrants: {
      ...DLQ_GRANT_EXTRAS,
      'sns:Publish':
        'Publish (lib/notifications/channels.ts) is a signed POST, not an SDK client, so the proof does not observe it; test/notifications/notify-approvers.test.ts delivers through it to a loopback stand-in.',
      'kms:Decrypt':
        "Part of CDK's grantPublish on a KMS-encrypted topic: SNS calls the key on the publisher's behalf.",
      'kms:GenerateDataKey*':
        "Part of CDK's grantPublish on a KMS-encrypted topic: SNS calls the key on the publisher's behalf.",
    },
  },
  'publish-domain-events': {
    description: 'DynamoDB Streams -> EventBridge: one domain event per payout outcome and payout run end',
    trigger: { kind: 'stream' },
    // Counts each payout run row's end onto its run once (a marker and the run's counters, one transaction) and
    // records the run's end (lib/payout-runs/run-ends.ts); a cancelled run's rows are read by key (Query), those
    // never sent checked to have no payout (ConditionCheck on the row).
    table: {
      access: 'countRunEnds',
      indexes: [],
      queriesTable: true,
      writes: [K.payoutRun],
      checks: [K.payoutRun],
    },
    provider: ProviderAccess.None,
    timeout: Duration.seconds(60),
    unexercisedGrants: DLQ_GRANT_EXTRAS,
  },
} as const satisfies Record<string, HandlerSpec>;
export type HandlerName = keyof typeof HANDLERS;

/**
 * Refuses a composition the project neither ships nor measures: a function that hands payouts to the
 * submission workers (`sendsTo`) deployed without them. Their code sends payouts itself when it has no queue
 * (a runtime built without SUBMIT_QUEUE_URL, as tests build them), which in AWS would take roles, rates and
 * cold starts nobody checked: the sweeper would need the PIN, and pay at one tick's pace (docs/submission.md).
 *
 * @throws Error naming the functions that would be left without the workers
 */
export function assertDeployable(deployed: readonly HandlerName[]): void {
  if (deployed.includes('submit-payouts')) return;
  const senders = deployed.filter((name) => 'sendsTo' in HANDLERS[name]);
  if (senders.length > 0) {
    throw new Error(
      `the submission workers (functions/submit-payouts.ts) must be deployed with the functions that hand them payouts: ${senders.join(', ')}`,
    );
  }
}

/** The registered handlers whose source exists: helpers add files to `functions/` while others are deployed. */
export function presentHandlers(root = PROJECT_ROOT): HandlerName[] {
  return (Object.keys(HANDLERS) as HandlerName[]).filter((name) =>
    existsSync(join(root, 'functions', `${name}.ts`)),
  );
}
