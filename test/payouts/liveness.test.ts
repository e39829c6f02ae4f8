import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FIFO_DEDUPLICATION_WINDOW_SECONDS,
  SUBMIT_WORKER_TIMEOUT_SECONDS,
  VISIBILITY_TIMEOUT_FACTOR,
} from '../../infra/config/submission.js';
import { systemPrincipal } from '../../lib/controls/index.js';
import { HAND_BACK_FIRST_VISIBILITY_SECONDS, handBackPromptly } from '../../lib/jobs/hand-back.js';
import {
  runSubmissionBatch,
  WORKER_STOP_STARTING_BEFORE_DEADLINE_MS,
} from '../../lib/jobs/submission-batch.js';
import { LocalSqsQueue } from '../../lib/local/local-sqs-queue.js';
import { pausePayouts, resumePayouts } from '../../lib/payouts/engine/controls.js';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import { type Payout, PayoutStatus } from '../../lib/payouts/model.js';
import type { PayoutEngine } from '../../lib/payouts/payout-engine.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import {
  deduplicationIdOf,
  messageGroupOf,
  REDELIVER_STUCK_AFTER_MS,
  resumeEpochOf,
  type SubmissionQueue,
  type SubmissionRequest,
} from '../../lib/payouts/queue/submission-queue.js';
import { ConcurrentModificationError } from '../../lib/shared/errors.js';
import { silentLogger } from '../../lib/shared/logger.js';
import {
  bankTransfer,
  command,
  type EngineHarness,
  ledgerEntriesOf,
  startEngineHarness,
} from '../support/engine-harness.js';
import { replaceMethod } from '../support/replace-method.js';

/**
 * Every way a payout comes back to the submission queue, through the local FIFO queue (its 5-minute
 * deduplication window and the stage's 24-minute visibility timeout on the test's clock) and the real worker:
 * the payout must reach the provider within one tick of becoming eligible again, never after the window.
 */
let h: EngineHarness;
let keyCounter = 0;
const key = (label: string) => `liveness-${label}-${++keyCounter}`;
const operator = systemPrincipal('liveness-test');
const WINDOW_MS = FIFO_DEDUPLICATION_WINDOW_SECONDS * 1000;
const TICK_MS = 60_000;

beforeAll(async () => {
  h = await startEngineHarness({
    maxLatenessMs: 60 * 60_000,
    // Short enough that a lost attempt is proved absent well inside the 5-minute window.
    submitLeaseMs: 20_000,
    reconcileGraceMs: 10_000,
    reconcileIntervalMs: 10_000,
    retryBaseMs: 5_000,
  });
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.reset());

/** What the next invocation does after the worker answered: nothing, crash, or run past its timeout. */
type Fate = 'answers' | 'crashes' | 'overruns' | 'dies-before-claim';

/**
 * The local FIFO queue on the harness's clock, delivering to the real worker (which hands back what it did not
 * do through the queue's ChangeMessageVisibility, as functions/submit-payouts.ts does), and the sweeper
 * enqueuing to it. `engine` replaces the worker's engine (a store with a fault); `nextRemainingMs` gives the
 * next invocation only that much time left.
 */
function fifoQueue(overrides: { maxConcurrency?: number; engine?: Pick<PayoutEngine, 'ctx'> } = {}) {
  let fate: Fate = 'answers';
  let remainingMs: number | undefined;
  const queue = new LocalSqsQueue({
    name: 'liveness.fifo',
    fifo: true,
    visibilityTimeoutMs: SUBMIT_WORKER_TIMEOUT_SECONDS * VISIBILITY_TIMEOUT_FACTOR * 1000,
    maxReceiveCount: 5,
    batchSize: 10,
    maxConcurrency: overrides.maxConcurrency ?? 2,
    functionTimeoutMs: SUBMIT_WORKER_TIMEOUT_SECONDS * 1000,
    logger: silentLogger,
    now: () => h.clock.now().getTime(),
    timeout: () => new Promise<void>(() => undefined),
    consumer: async (event: SQSEvent, context) => {
      if (fate === 'dies-before-claim') {
        fate = 'answers';
        throw new Error('simulated: the invocation died before its first claim');
      }
      const left = remainingMs ?? context.getRemainingTimeInMillis();
      remainingMs = undefined;
      const { response } = await runSubmissionBatch(overrides.engine ?? h.engine, event, left, silentLogger);
      await handBackPromptly(
        {
          changeVisibility: async (entries) =>
            entries.filter((entry) => !queue.changeVisibility(entry.receiptHandle, entry.visibilitySeconds))
              .length,
        },
        event,
        response,
        silentLogger,
      );
      const now = fate;
      fate = 'answers';
      if (now === 'crashes') throw new Error('simulated: the invocation died before answering');
      if (now === 'overruns') h.clock.advance(SUBMIT_WORKER_TIMEOUT_SECONDS * 1000 + 1);
      return response;
    },
  });
  const submissions: SubmissionQueue = {
    async enqueue(requests: readonly SubmissionRequest[]) {
      queue.send(
        requests.map((request) => ({
          body: JSON.stringify(request),
          groupId: messageGroupOf(request),
          deduplicationId: deduplicationIdOf(request),
        })),
      );
    },
  };
  /** One sweeper tick, after the clock moved on by `advanceMs`, and the deliveries it caused. */
  const tick = async (advanceMs = 0) => {
    h.clock.advance(advanceMs);
    const report = await payoutSweeper(h.engine).dispatch(submissions);
    queue.pump();
    await queue.idle();
    return report;
  };
  return {
    queue,
    submissions,
    tick,
    nextInvocation: (next: Fate) => {
      fate = next;
    },
    nextRemainingMs: (ms: number) => {
      remainingMs = ms;
    },
  };
}

async function createPending(amountKobo: number): Promise<Payout> {
  return (await h.engine.create(command(bankTransfer(amountKobo), key('payout')))).payout;
}

const statusOf = async (id: string) => (await h.engine.get(id))?.status;

describe('a payout back on the queue is sent within one tick, not after the deduplication window', () => {
  it('sends a payout paused at creation within one tick of the resume, not after the 5-minute deduplication window', async () => {
    const { tick } = fifoQueue();
    await pausePayouts(h.engine.ctx, operator, 'liveness test');
    let payout: Payout;
    try {
      payout = await createPending(41_000);
      await tick();
      await tick(TICK_MS);
      expect(await statusOf(payout.id)).toBe(PayoutStatus.Pending);
      expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
    } finally {
      h.clock.advance(1_000);
      await resumePayouts(h.engine.ctx, operator);
    }

    await tick(TICK_MS);

    expect(await statusOf(payout.id)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('sends a payout a worker skipped unwritten while paused within one tick of the resume', async () => {
    const { submissions, tick } = fifoQueue();
    const payout = await createPending(42_000);
    // The tick read the controls before the pause landed: its request reaches a worker that meets the pause.
    const beforePause = resumeEpochOf(await h.store.getControls());
    await pausePayouts(h.engine.ctx, operator, 'liveness test');
    try {
      await submissions.enqueue([{ payoutId: payout.id, version: payout.version, resumeEpoch: beforePause }]);
      await tick();
      const skipped = await h.engine.get(payout.id);
      expect(skipped).toMatchObject({ status: PayoutStatus.Pending, version: payout.version });
    } finally {
      h.clock.advance(1_000);
      await resumePayouts(h.engine.ctx, operator);
    }

    await tick(TICK_MS);

    expect(await statusOf(payout.id)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('sends a payout given back by a 429 within one tick of its Retry-After', async () => {
    const { tick } = fifoQueue();
    const payout = await createPending(43_000);
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 1 });
    await tick();
    const handedBack = await h.engine.get(payout.id);
    expect(handedBack?.status).toBe(PayoutStatus.Pending);
    const waitMs = Date.parse(handedBack?.nextActionAt ?? '') - h.clock.now().getTime();
    expect(waitMs).toBeLessThan(TICK_MS);

    await tick(TICK_MS);

    expect(await statusOf(payout.id)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('sends a payout whose attempt was proved absent within one tick of the proof', async () => {
    const { tick } = fifoQueue();
    const payout = await createPending(44_000);
    // The connection drops before the provider commits: the outcome is unknown until the reconciler looks.
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'reset-before-commit', times: 1 });
    await tick();
    expect(await statusOf(payout.id)).toBe(PayoutStatus.Unknown);
    h.clock.advance(30_000);
    await reconcilePayouts(h.engine.ctx);
    expect(await statusOf(payout.id)).toBe(PayoutStatus.Pending);

    await tick(TICK_MS);

    expect(await statusOf(payout.id)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('sends a payout whose worker crashed mid-attempt within one tick of the proof, though the crashed message stays in flight for 24 minutes', async () => {
    const { queue, tick, nextInvocation } = fifoQueue();
    const payout = await createPending(45_000);
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'reset-before-commit', times: 1 });
    nextInvocation('crashes');
    await tick();
    expect(queue.stats().inFlight).toBe(1);
    h.clock.advance(30_000);
    await reconcilePayouts(h.engine.ctx);
    expect(await statusOf(payout.id)).toBe(PayoutStatus.Pending);

    await tick(TICK_MS);

    expect(await statusOf(payout.id)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('sends a payout whose invocation ran past its timeout within one tick of its Retry-After, while that message waits out the visibility timeout', async () => {
    const { queue, tick, nextInvocation } = fifoQueue();
    const payout = await createPending(46_000);
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 1 });
    nextInvocation('overruns');
    const started = h.clock.now().getTime();
    await tick();
    expect(queue.stats().inFlight).toBe(1);
    const retried = await h.engine.get(payout.id);
    expect(retried?.status).toBe(PayoutStatus.Pending);

    // The overrun took the invocation's whole timeout; the Retry-After (1 s) has long passed: the next tick.
    await tick(5_000);

    expect(h.clock.now().getTime() - started).toBeLessThan(WINDOW_MS);
    expect(await statusOf(payout.id)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('sends a payout handed back unstarted (its invocation near the deadline) within one tick, not after the 24-minute visibility timeout', async () => {
    const { queue, tick, nextRemainingMs } = fifoQueue();
    const payout = await createPending(48_000);
    nextRemainingMs(WORKER_STOP_STARTING_BEFORE_DEADLINE_MS - 1);
    await tick();
    expect(await h.engine.get(payout.id)).toMatchObject({
      status: PayoutStatus.Pending,
      version: payout.version,
    });
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
    expect(queue.stats().inFlight).toBe(1);

    // The next tick's request for the same version is deduplicated: only the handed-back message can send it.
    await tick(TICK_MS);

    expect(await statusOf(payout.id)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('sends a payout whose claim lost to contention within one tick, not after the deduplication window', async () => {
    // DynamoDB Local serialises transactions and never cancels a claim for TransactionConflict, as DynamoDB does
    // under contention on the cap counter: the store's transition is wrapped to refuse the first claim so.
    let refusals = 1;
    const contended = replaceMethod(h.store, 'transition', async (write) => {
      if (write.after.status === PayoutStatus.Submitting && refusals > 0) {
        refusals--;
        throw new ConcurrentModificationError('payout', write.before.id);
      }
      return h.store.transition(write);
    });
    const { tick } = fifoQueue({ engine: { ctx: { ...h.engine.ctx, store: contended } } });
    const payout = await createPending(49_000);
    await tick();
    expect(refusals).toBe(0);
    expect(await h.engine.get(payout.id)).toMatchObject({
      status: PayoutStatus.Pending,
      version: payout.version,
    });

    h.clock.advance(HAND_BACK_FIRST_VISIBILITY_SECONDS * 1000);
    await tick(TICK_MS - HAND_BACK_FIRST_VISIBILITY_SECONDS * 1000);

    expect(await statusOf(payout.id)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('sends a payout whose invocation died before its claim within the redelivery window and a tick, not after the 24-minute visibility timeout', async () => {
    const { queue, tick, nextInvocation } = fifoQueue();
    const payout = await createPending(44_000);
    const eligibleAt = h.clock.now().getTime();
    nextInvocation('dies-before-claim');
    await tick();
    expect(queue.stats().inFlight).toBe(1);
    expect(await h.engine.get(payout.id)).toMatchObject({
      status: PayoutStatus.Pending,
      version: payout.version,
    });

    // Inside the window each tick's request is the same message, dropped: nothing floods the queue.
    while (h.clock.now().getTime() + TICK_MS < eligibleAt + REDELIVER_STUCK_AFTER_MS) {
      await tick(TICK_MS);
      expect(queue.stats().visible).toBe(0);
      expect(await statusOf(payout.id)).toBe(PayoutStatus.Pending);
    }
    await tick(TICK_MS);

    expect(h.clock.now().getTime() - eligibleAt).toBeLessThanOrEqual(REDELIVER_STUCK_AFTER_MS + TICK_MS);
    expect(queue.stats().inFlight).toBe(1);
    expect(await statusOf(payout.id)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('still drops the same eligibility enqueued again by the next tick', async () => {
    // No deliveries: what the two ticks enqueued stays visible.
    const { queue, tick } = fifoQueue({ maxConcurrency: 0 });
    const payout = await createPending(47_000);
    await tick();
    const afterOne = queue.stats().visible;
    await tick(TICK_MS);
    expect(queue.stats().visible).toBe(afterOne);
    expect(await statusOf(payout.id)).toBe(PayoutStatus.Pending);
  });
});
