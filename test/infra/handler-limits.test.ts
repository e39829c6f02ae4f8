import { describe, expect, it } from 'vitest';
import {
  FIFO_DEDUPLICATION_WINDOW_SECONDS,
  SUBMIT_WORKER_TIMEOUT_SECONDS,
  SWEEP_TICK_SECONDS,
  VISIBILITY_TIMEOUT_FACTOR,
} from '../../infra/config/submission.js';
import { drainRatePerSecond, enqueuePerTick } from '../../infra/config/submission-sizing.js';
import { DOMAIN_EVENT_STREAM } from '../../infra/constructs/domain-events.js';
import { HANDLERS, type HandlerName } from '../../infra/handlers.js';
import { API_FUNCTIONS, type ApiFunctionName } from '../../lib/api/functions/index.js';
import { API_DEADLINES } from '../../lib/api/request-deadline.js';
import {
  STATEMENT_API_STOP_BEFORE_DEADLINE_MS,
  STATEMENT_API_UNIT_DEADLINE_MS,
} from '../../lib/api/routes/statements.js';
import { MAX_BATCH_CORRECTIONS } from '../../lib/bulk-corrections/schemas.js';
import {
  PUBLISH_STOP_STARTING_BEFORE_DEADLINE_MS,
  PUT_EVENTS_DEADLINE_MS,
} from '../../lib/events/publish-stream-batch.js';
import { ROW_STOP_STARTING_BEFORE_DEADLINE_MS } from '../../lib/jobs/correction-batch.js';
import {
  POLL_STOP_STARTING_BEFORE_DEADLINE_MS,
  POLL_SUBMIT_INLINE_BEFORE_DEADLINE_MS,
} from '../../lib/jobs/poll-settlements.js';
import {
  DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS,
  RECONCILE_STOP_STARTING_BEFORE_DEADLINE_MS,
  REFUND_STOP_STARTING_BEFORE_DEADLINE_MS,
  SYNC_STOP_STARTING_BEFORE_DEADLINE_MS,
} from '../../lib/jobs/scheduled.js';
import { STATEMENT_STOP_STARTING_BEFORE_DEADLINE_MS } from '../../lib/jobs/statement-reconciliation.js';
import { WORKER_STOP_STARTING_BEFORE_DEADLINE_MS } from '../../lib/jobs/submission-batch.js';
import { RUN_STOP_STARTING_BEFORE_DEADLINE_MS } from '../../lib/payout-runs/index.js';
import { SQS_REQUEST_TIMEOUT_MS } from '../../lib/payouts/adapters/sqs-submission-queue.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { DEFAULT_DISPATCH_PAGE_SIZE } from '../../lib/payouts/engine/dispatch.js';
import { OPEN_COUNT_MAX_PAGES } from '../../lib/payouts/engine/reconcile-payouts.js';
import { MAX_SLOT_WAIT_MS, PAUSE_RECHECK_DEADLINE_MS } from '../../lib/payouts/engine/submit-requested.js';
import { LOOKUP_DEADLINE_MS } from '../../lib/payouts/engine/watch-attempts.js';
import { MAX_RESERVE_WRITES } from '../../lib/payouts/store/dynamodb-rate-limiter.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../lib/provider/client.js';
import {
  SYNC_PAGE_READ_DEADLINE_MS,
  SYNC_PAGE_WRITE_DEADLINE_MS,
} from '../../lib/provider-schedules/provider-schedule-service.js';
import { REFUND_SEND_DEADLINE_MS } from '../../lib/refunds/model.js';
import { DEEP_HEALTH_DEADLINE_MS } from '../../lib/runtime/health.js';
import { POLL_PAGE_READ_DEADLINE_MS } from '../../lib/settlement/settlement-poller.js';
import { DYNAMODB_CALL_DEADLINE_MS } from '../../lib/shared/dynamodb-client.js';
import { readWithinWindowMs } from '../../lib/shared/send-window.js';
import { STATEMENT_UNIT_DEADLINE_MS } from '../../lib/statements/index.js';
import { stageConfigFromCdkJson } from './support/synth.js';

/** One DynamoDB call to its total deadline, the SDK's retries included (lib/shared/dynamodb-client.ts). */
const dynamoDbCall = DYNAMODB_CALL_DEADLINE_MS;
/** One provider call to its deadline. */
const providerCall = DEFAULT_REQUEST_TIMEOUT_MS;
/** Headroom kept beyond every worst case. */
const MARGIN = 1.2;
const STAGES = ['dev', 'prod'];

/**
 * What a claimed payout may still do before its outcome is written: reserve its slot (the pacer's conditional
 * writes), wait for the slot (a missed slot's replacement is reserved within that wait: its writes are cut off
 * at its end), read the pause again if it waited (abandoned at its own deadline), the provider call, the
 * recording (the fleet's cool-down after a 429 is written alongside it). A retry after a 429 claims anew and is
 * bounded the same way.
 */
const afterClaimMs =
  MAX_RESERVE_WRITES * dynamoDbCall +
  MAX_SLOT_WAIT_MS +
  PAUSE_RECHECK_DEADLINE_MS +
  providerCall +
  dynamoDbCall;

/**
 * One settlement decided by the poll (lib/settlement/settlement-service.ts): the poll's read of its decision
 * (payOut reads none of its own), the cutoff (read, put, read again), the payout's creation (the idempotent
 * transaction, the key's read, the payout's read) and the read after an idempotency conflict, the decision's
 * record (put, read). A refused creation (one read) and a skip or a deferral (their write and one read) cost less.
 */
const settlementDecisionMs = 10 * dynamoDbCall;

/**
 * How each function's worst case is bounded. Every function in `infra/handlers.ts` needs an entry: a new
 * function without one fails the first test.
 * - `stopsStarting`: it loops over units of work and starts none with less than `marginMs` left; each unit's
 *   worst case (every call to its deadline, or the deadline it is abandoned at) must fit that margin, and the
 *   margin the timeout. An `optional` unit (the poll's inline submission) may never fit a fresh invocation: it is
 *   then never started, and the work goes another way.
 * - `answersAtDeadline`: a request/response function that answers itself at a deadline `marginMs` before its
 *   invocation ends (lib/api/request-deadline.ts), whatever its work still does; the deadline must fit the
 *   timeout with margin. Each part (the inline send) starts only with its `marginMs` left before that deadline
 *   and must fit it, so a send that starts is answered before the request is.
 * - `oneUnit`: a single unit per invocation, abandoned at its deadline; it must fit the timeout.
 * - `cutOffGuardedByLease`: one unit per invocation that may outlast the timeout; a cut-off never pays twice
 *   because the payout's claim (lease) outlives any invocation holding it; the reconciler decides it after.
 * - `notYetBounded`: no bound is proved yet; the reason says what a cut-off costs. Listed, so a function
 *   cannot silently join this list (the last test names them).
 */
type Limit =
  | {
      readonly kind: 'stopsStarting';
      readonly parts: readonly { name: string; marginMs: number; unitMs: number; optional?: true }[];
    }
  | {
      readonly kind: 'answersAtDeadline';
      readonly marginMs: number;
      readonly parts: readonly { name: string; marginMs: number; unitMs: number; optional: true }[];
    }
  | { readonly kind: 'oneUnit'; readonly name: string; readonly unitMs: number }
  | { readonly kind: 'cutOffGuardedByLease'; readonly why: string }
  | { readonly kind: 'notYetBounded'; readonly why: string };

/**
 * A read bounded by the send window (readWithinWindowMs, lib/shared/send-window.ts), made before anything is
 * recorded whenever the reads ahead of it let it start: POST /refunds' read of the transaction (what was paid,
 * lib/refunds/amount-paid.ts), POST /instant-settlements' read of the provider's listing (the settlement's look-up,
 * lib/settlement/settlement-service.ts). Counted as a part started at the send window's last instant (`sendBy`):
 * how far past that instant the read may run, the latest over every start from the request's arrival to its
 * deadline. Cut off, it answers 503 with nothing recorded; the create that follows a read has the rest of the
 * margin, as the recording after a send does.
 */
function latestWindowedReadEndMs(): number {
  const deadlineMs = API_DEADLINES.localBudgetMs - API_DEADLINES.marginMs;
  const window = {
    sendBy: deadlineMs - API_DEADLINES.sendBeforeDeadlineMs,
    deadlineMs: API_DEADLINES.sendDeadlineMs,
  };
  let latestEnd = 0;
  for (let start = 0; start <= deadlineMs; start += 100) {
    const readMs = readWithinWindowMs(window, start);
    if (readMs > 0) latestEnd = Math.max(latestEnd, start + readMs);
  }
  return latestEnd - window.sendBy;
}

/**
 * An ops API function: the router answers at the request's deadline. POST /payouts (api-payouts), an approval,
 * a refund, an instant settlement or a replayed dead letter may send inline: the provider call, its retries and
 * credential reads included (callDeadlineMs). The recording that follows has the rest of the margin; abandoned
 * at the deadline, it leaves the payout claimed under its lease for the reconciler, as a timed-out send always did.
 */
const API_ANSWERS: Limit = {
  kind: 'answersAtDeadline',
  marginMs: API_DEADLINES.marginMs,
  parts: [
    {
      name: 'an inline send',
      marginMs: API_DEADLINES.sendBeforeDeadlineMs,
      unitMs: API_DEADLINES.sendDeadlineMs,
      optional: true,
    },
    {
      name: "a refund's read of its transaction, before anything is recorded",
      marginMs: API_DEADLINES.sendBeforeDeadlineMs,
      unitMs: latestWindowedReadEndMs(),
      optional: true,
    },
    {
      // Every page of the look-up (the first look and the walk) and the decision's read alongside it, together.
      name: "an instant settlement's read of the provider's listing, before anything is recorded",
      marginMs: API_DEADLINES.sendBeforeDeadlineMs,
      unitMs: latestWindowedReadEndMs(),
      optional: true,
    },
  ],
};

const LIMITS: Record<HandlerName, Limit> = {
  'submit-payouts': {
    kind: 'stopsStarting',
    parts: [
      {
        name: 'one payout of the batch (or its retry after a 429)',
        marginMs: WORKER_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: dynamoDbCall /* read */ + dynamoDbCall /* claim */ + afterClaimMs,
      },
      {
        // lib/bulk-corrections/correction-jobs.ts: the row, the item's last state (the gate's "known invalid"),
        // the controls (pause), the claim, the provider call, the audit entry, the item's state (3 attempts, each
        // after the first re-reading it: 5 calls), the row's result.
        name: 'one correction-job row',
        marginMs: ROW_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: 4 * dynamoDbCall + providerCall + dynamoDbCall + 5 * dynamoDbCall + dynamoDbCall,
      },
    ],
  },
  'sweep-due-payouts': {
    kind: 'stopsStarting',
    parts: [
      {
        // A query, then its SendMessageBatch calls (each offered twice at most), 16 at a time.
        name: 'one page of the dispatch',
        marginMs: DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: dynamoDbCall + 2 * Math.ceil(DEFAULT_DISPATCH_PAGE_SIZE / 10 / 16) * SQS_REQUEST_TIMEOUT_MS,
      },
      {
        // lib/bulk-corrections/pending-enqueue.ts, beside the dispatch with the same stop instant: one message per
        // bulk payout item (at most one per row), ten a SendMessageBatch, 16 at a time, each offered twice at
        // most; then the job item's update. The query of due jobs is cheaper.
        name: 'one correction job the queue refused, handed over again',
        marginMs: DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: 2 * Math.ceil(MAX_BATCH_CORRECTIONS / 10 / 16) * SQS_REQUEST_TIMEOUT_MS + dynamoDbCall,
      },
      {
        // lib/payout-runs/run-service.ts, before the dispatch: a run's two reads (the run, a page of its rows), one
        // row (the engine's create, its read after a conflict, the row's record), then the run's transition.
        name: "one payout run's reads, one of its rows turned into a payout, and the run's mark",
        marginMs: RUN_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: 2 * dynamoDbCall + 3 * dynamoDbCall + dynamoDbCall,
      },
      {
        // lib/refunds/refund-sender.ts, beside the dispatch with its own stop instant: the claim (and the read
        // after its lost answer), the provider call abandoned at its deadline, the recording (and its read after a
        // lost answer). A claim refused on the transaction's total (the total's read, the refusal and its read),
        // past the cap (the refusal and its read) or a stale claim handed to a person (a write, a read) costs no
        // more and sends nothing.
        name: 'one refund claimed, sent and recorded',
        marginMs: REFUND_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: 2 * dynamoDbCall + REFUND_SEND_DEADLINE_MS + 2 * dynamoDbCall,
      },
    ],
  },
  'reconcile-payouts': {
    kind: 'stopsStarting',
    parts: [
      {
        // Past the stop instant no work queue is read; the gauges are, at most OPEN_COUNT_MAX_PAGES pages each
        // (the two at once). A lease expiry (one write), a queue read or a page of the in-flight listing the
        // ended leases are found in (endedLeases: each page started only while there is time) is cheaper.
        name: 'one decision (its look-ups, abandoned at their deadline, and its transition), then the gauges',
        marginMs: RECONCILE_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: LOOKUP_DEADLINE_MS + dynamoDbCall + OPEN_COUNT_MAX_PAGES * dynamoDbCall,
      },
    ],
  },
  // Every function of the ops API (lib/api/functions/) answers at the request's deadline.
  'api-payouts': API_ANSWERS,
  'api-recurrences': API_ANSWERS,
  'api-operations': API_ANSWERS,
  'api-settlements': API_ANSWERS,
  'api-corrections': API_ANSWERS,
  'api-dead-letters': API_ANSWERS,
  'api-payout-runs': API_ANSWERS,
  'api-docs': API_ANSWERS,
  'api-operators': API_ANSWERS,
  // The statements' re-run (POST /statements/{date}/run) runs within the request's deadline: no unit of work (a
  // page of the provider's listing, ten payout reads, a page of our listing, a double's transition, a page of the
  // lines already written, one BatchWriteItem of 25 lines) starts with less than its margin left, each is abandoned
  // at its deadline, and the report's read and put follow, each to the same deadline. Cut short, the day is
  // answered `incomplete` and the next hourly run completes it.
  'api-statements': {
    ...API_ANSWERS,
    parts: [
      ...API_ANSWERS.parts,
      {
        name: "a statement re-run's unit of work, then the report's read and put",
        marginMs: STATEMENT_API_STOP_BEFORE_DEADLINE_MS,
        unitMs: 3 * STATEMENT_API_UNIT_DEADLINE_MS,
        optional: true,
      },
    ],
  },
  'reconcile-statements': {
    kind: 'stopsStarting',
    parts: [
      {
        // The same units as the re-run's, at the schedule's deadline; cut short, the report is stored `incomplete`
        // and the next tick redoes the day (idempotent: no finding raised twice, no second needs_review).
        name: "one unit of the day's reconciliation, then the report's read and put",
        marginMs: STATEMENT_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: 3 * STATEMENT_UNIT_DEADLINE_MS,
      },
    ],
  },
  'payout-requested': {
    // Not `answersAtDeadline`: no caller waits for an answer, so answering early gains nothing; cut off, the
    // invocation is retried by EventBridge and the lease keeps the claim exactly-once.
    kind: 'cutOffGuardedByLease',
    why: 'creates and submits at once; EventBridge retries a cut-off invocation, whose idempotent create finds the payout and whose claim finds it taken',
  },
  'settlement-available': {
    // Its look-up may walk up to 10 pages of the provider's listing, so one invocation is not bounded by its
    // timeout; it claims nothing (the workers send), so a cut-off leaves at most a pending payout, due at once.
    kind: 'cutOffGuardedByLease',
    why: "decides a settlement and hands its payout to the workers; a cut-off leaves at most a pending payout, which the sweeper enqueues, and the retry finds the decision recorded; only the workers' claim sends",
  },
  'poll-settlements': {
    kind: 'stopsStarting',
    parts: [
      {
        // A settlement's payout is handed to the workers: one SendMessageBatch, tried twice at most.
        name: 'one page read (abandoned at its deadline) or one settlement decided and handed over',
        marginMs: POLL_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: Math.max(POLL_PAGE_READ_DEADLINE_MS, settlementDecisionMs + 2 * SQS_REQUEST_TIMEOUT_MS),
      },
      {
        // Without the queue (outside a stack): the decision, then the engine's submit (the payout's read, its
        // claim, and what follows a claim).
        name: 'one settlement decided and its payout submitted inline',
        marginMs: POLL_SUBMIT_INLINE_BEFORE_DEADLINE_MS,
        unitMs: settlementDecisionMs + dynamoDbCall + dynamoDbCall + afterClaimMs,
        optional: true,
      },
    ],
  },
  'sync-provider-schedules': {
    kind: 'stopsStarting',
    parts: [
      {
        // The page's read and its upserts, each abandoned at its deadline; the cursor's write; and, after the
        // last page, the sync status and the cursor's reset (written at once).
        name: 'one page of a provider list, then the finishing writes',
        marginMs: SYNC_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: SYNC_PAGE_READ_DEADLINE_MS + SYNC_PAGE_WRITE_DEADLINE_MS + dynamoDbCall + dynamoDbCall,
      },
    ],
  },
  'health-canary': {
    kind: 'oneUnit',
    // Both checks run at once and each answers `failed` at the deadline; the metric is written to stdout (EMF).
    name: 'the deep check (the table read and the provider read, each abandoned at its deadline)',
    unitMs: DEEP_HEALTH_DEADLINE_MS,
  },
  'notify-approvers': {
    // The marker's claim holds the event for its lease (lib/notifications/delivery-marker.ts); Lambda retries a
    // cut-off invocation a minute or more later, when the lease has lapsed, and the retry sends only to the
    // channels the marker does not record as delivered.
    kind: 'cutOffGuardedByLease',
    why: 'one notification, each delivery abandoned after 5 s; a cut-off leaves the marker claimed, and the retry after its lease sends only what was not delivered',
  },
  'publish-domain-events': {
    kind: 'stopsStarting',
    parts: [
      {
        name: "one record's PutEvents (the SDK's retries included, abandoned at its deadline)",
        marginMs: PUBLISH_STOP_STARTING_BEFORE_DEADLINE_MS,
        unitMs: PUT_EVENTS_DEADLINE_MS,
      },
    ],
  },
};
const timeoutOf = (name: HandlerName) => HANDLERS[name].timeout.toMilliseconds();

describe("every function's worst case fits its limits", () => {
  it('has a limits entry for every function in infra/handlers.ts', () => {
    expect(Object.keys(LIMITS).sort()).toEqual(Object.keys(HANDLERS).sort());
  });

  const stopping = Object.entries(LIMITS).flatMap(([name, limit]) =>
    limit.kind === 'stopsStarting'
      ? limit.parts.map((part) => ({ handler: name as HandlerName, ...part }))
      : [],
  );
  it.each(stopping)('$handler: finishes $name started before its stop margin, within its timeout', (part) => {
    expect(part.unitMs * MARGIN).toBeLessThanOrEqual(part.marginMs);
    // A fresh invocation has time to start work at all.
    if (!part.optional) expect(timeoutOf(part.handler)).toBeGreaterThan(part.marginMs);
  });

  const answering = Object.entries(LIMITS).flatMap(([name, limit]) =>
    limit.kind === 'answersAtDeadline' ? [{ handler: name as HandlerName, ...limit }] : [],
  );
  it.each(answering)(
    '$handler: answers at its deadline, within its timeout and API Gateway’s 30 s',
    (limit) => {
      const deadlineMs = timeoutOf(limit.handler) - limit.marginMs;
      expect(deadlineMs * MARGIN).toBeLessThanOrEqual(timeoutOf(limit.handler));
      expect(timeoutOf(limit.handler)).toBeLessThan(30_000);
      for (const part of limit.parts) {
        expect(part.unitMs * MARGIN).toBeLessThanOrEqual(part.marginMs);
        // A request that starts at once has time to send inline.
        expect(deadlineMs).toBeGreaterThan(part.marginMs);
      }
    },
  );

  const apiFunctions = Object.keys(API_FUNCTIONS) as ApiFunctionName[];
  it.each(apiFunctions)('%s: runs locally with the budget the Lambda has', (name) => {
    expect(API_DEADLINES.localBudgetMs).toBe(timeoutOf(name));
  });

  const single = Object.entries(LIMITS).flatMap(([name, limit]) =>
    limit.kind === 'oneUnit'
      ? [{ handler: name as HandlerName, name: limit.name, unitMs: limit.unitMs }]
      : [],
  );
  it.each(single)('$handler: finishes $name within its timeout', (unit) => {
    expect(unit.unitMs * MARGIN).toBeLessThanOrEqual(timeoutOf(unit.handler));
  });

  it('publish-domain-events: a stream batch is published within its retries even when every PutEvents takes its whole deadline', () => {
    // Records started per invocation at worst: one at once, then one per deadline until the stop margin.
    const window = timeoutOf('publish-domain-events') - PUBLISH_STOP_STARTING_BEFORE_DEADLINE_MS;
    const perInvocation = Math.floor(window / PUT_EVENTS_DEADLINE_MS) + 1;
    const invocations = Math.ceil(DOMAIN_EVENT_STREAM.batchSize / perInvocation);
    // The first invocation and its retries; a record handed back counts one retry of the batch.
    expect(invocations).toBeLessThanOrEqual(1 + DOMAIN_EVENT_STREAM.retryAttempts);
  });

  const guarded = Object.entries(LIMITS).flatMap(([name, limit]) =>
    limit.kind === 'cutOffGuardedByLease' ? [name as HandlerName] : [],
  );
  it.each(guarded)('%s: a payout it claimed stays claimed longer than the invocation can run', (name) => {
    expect(timeoutOf(name) * MARGIN).toBeLessThanOrEqual(defaultEngineConfig.submitLeaseMs);
  });

  it("keeps a worker's claimed payout inside the claim's lease: wait, send and recording", () => {
    expect(afterClaimMs * MARGIN).toBeLessThanOrEqual(defaultEngineConfig.submitLeaseMs);
    expect(timeoutOf('submit-payouts')).toBe(SUBMIT_WORKER_TIMEOUT_SECONDS * 1000);
  });

  it('names every function whose worst case is not proved yet', () => {
    const unproved = Object.entries(LIMITS).flatMap(([name, limit]) =>
      limit.kind === 'notYetBounded' ? [name] : [],
    );
    expect(unproved.sort()).toEqual([]);
  });
});

describe('the submission queue fits its limits', () => {
  it.each(STAGES)('%s: is never redelivered while an invocation may still run', (stage) => {
    const config = stageConfigFromCdkJson(stage);
    expect(VISIBILITY_TIMEOUT_FACTOR).toBeGreaterThanOrEqual(6);
    expect(config.submission.batchSize).toBeLessThanOrEqual(10);
    // A message is { payoutId, version }: far below SQS's 256 KB, a batch of them far below Lambda's 6 MB.
    const message = JSON.stringify({ payoutId: 'x'.repeat(64), version: Number.MAX_SAFE_INTEGER });
    expect(message.length + 2_000).toBeLessThan(256 * 1024);
    expect(config.submission.batchSize * (message.length + 2_000)).toBeLessThan(6 * 1024 * 1024);
  });

  it.each(STAGES)(
    "%s: a tick enqueues at least a tick's draining, and nothing waits past FIFO's deduplication window",
    (stage) => {
      const config = stageConfigFromCdkJson(stage);
      const perTick = enqueuePerTick(config);
      const drain = drainRatePerSecond(config);
      // The queue never runs dry between two ticks while a backlog lasts.
      expect(perTick).toBeGreaterThanOrEqual(drain * SWEEP_TICK_SECONDS);
      // The last message of a tick is taken within five minutes, so the next tick's copy of a payout still
      // queued is dropped by SQS rather than queued twice.
      expect(perTick / drain).toBeLessThanOrEqual(FIFO_DEDUPLICATION_WINDOW_SECONDS);
    },
  );

  it.each(STAGES)('%s: sizes concurrency to the provider’s rate limit', (stage) => {
    const config = stageConfigFromCdkJson(stage);
    const limit = config.providerRateLimitPerSecond;
    if (limit === undefined) return;
    const inFlight = config.submission.maxConcurrency * config.submission.batchSize;
    // Enough payouts in flight to keep R a second going while each takes up to a second (L and the table's
    // writes), and no more than the fleet can reserve slots for within the longest slot wait: beyond that,
    // claims would be given back unsent.
    expect(inFlight).toBeGreaterThanOrEqual(limit);
    expect(inFlight).toBeLessThanOrEqual((limit * MAX_SLOT_WAIT_MS) / 1000);
  });
});
