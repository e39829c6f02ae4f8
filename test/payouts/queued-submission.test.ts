import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SUBMIT_WORKER_TIMEOUT_SECONDS } from '../../infra/config/submission.js';
import { systemPrincipal } from '../../lib/controls/index.js';
import {
  runSubmissionBatch,
  WORKER_STOP_STARTING_BEFORE_DEADLINE_MS,
} from '../../lib/jobs/submission-batch.js';
import { pausePayouts, resumePayouts } from '../../lib/payouts/engine/controls.js';
import { MAX_SLOTS_PER_SEND } from '../../lib/payouts/engine/submit-requested.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { MAX_SEND_LATENESS_MS } from '../../lib/payouts/queue/rate-limiter.js';
import type { SubmissionQueue, SubmissionRequest } from '../../lib/payouts/queue/submission-queue.js';
import { DynamoDbRateLimiter } from '../../lib/payouts/store/dynamodb-rate-limiter.js';
import { CapturingLogger } from '../../lib/shared/logger.js';
import { createTestTable } from '../support/dynamodb.js';
import {
  bankTransfer,
  command,
  type EngineHarness,
  ledgerEntriesOf,
  startEngineHarness,
} from '../support/engine-harness.js';
import { replaceMethod } from '../support/replace-method.js';

let h: EngineHarness;
let keyCounter = 0;
const key = (label: string) => `${label}-${++keyCounter}`;

let pacerTable: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  h = await startEngineHarness({ maxLatenessMs: 60 * 60_000 });
  pacerTable = await createTestTable('pacer');
});
afterAll(async () => {
  pacerTable.client.destroy();
  await h.close();
});
beforeEach(() => h.sandbox.reset());

/**
 * A pacer on a table of its own, closed after `run`: for a test whose clock must meet no other test's
 * reservations on the shared pacer.
 */
async function withOwnPacer<T>(
  options: ConstructorParameters<typeof DynamoDbRateLimiter>[2],
  run: (limiter: DynamoDbRateLimiter) => Promise<T>,
): Promise<T> {
  const table = await createTestTable('pacer');
  try {
    return await run(new DynamoDbRateLimiter(table.client, table.tableName, options));
  } finally {
    table.client.destroy();
  }
}

/** Records what the sweeper enqueued, as the FIFO queue would receive it. */
class RecordingQueue implements SubmissionQueue {
  readonly requests: SubmissionRequest[] = [];
  async enqueue(requests: readonly SubmissionRequest[]): Promise<void> {
    this.requests.push(...requests);
  }
}

/** A fresh invocation of the worker: its whole timeout left. */
const FRESH_INVOCATION_MS = SUBMIT_WORKER_TIMEOUT_SECONDS * 1000;
const providerCalls = () => h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
const inMinutes = (minutes: number) => new Date(h.clock.now().getTime() + minutes * 60_000).toISOString();

/** The SQS event Lambda hands the worker: one record per request, the payout id as the message group. */
function sqsEvent(requests: readonly SubmissionRequest[]): SQSEvent {
  return {
    Records: requests.map((request, index) => ({
      messageId: `m${index}`,
      receiptHandle: `r${index}`,
      body: JSON.stringify(request),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 'test',
        ApproximateFirstReceiveTimestamp: '0',
        MessageGroupId: request.payoutId,
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:submissions.fifo',
      awsRegion: 'local',
    })),
  };
}

async function pendingPayouts(count: number) {
  const payouts = [];
  for (let index = 0; index < count; index++) {
    payouts.push((await h.engine.create(command(bankTransfer(10_000 + index), key('queued')))).payout);
  }
  return payouts;
}

describe('the sweeper, fanning submission out', () => {
  it('releases due scheduled payouts and enqueues every due pending payout, page by page, sending nothing', async () => {
    const pending = await pendingPayouts(7);
    const { payout: scheduled } = await h.engine.create(
      command(bankTransfer(45_000, { scheduleAt: inMinutes(5) }), key('scheduled')),
    );
    h.clock.advance(5 * 60_000);
    const queue = new RecordingQueue();

    const report = await payoutSweeper(h.engine).dispatch(queue, { pageSize: 3 });

    expect(report).toMatchObject({ released: 1, missed: 0, leftOver: false });
    const ids = queue.requests.map((request) => request.payoutId);
    expect(ids).toEqual(expect.arrayContaining([...pending.map((payout) => payout.id), scheduled.id]));
    expect(new Set(ids).size).toBe(ids.length);
    expect(report.enqueued).toBe(ids.length);
    const released = await h.engine.get(scheduled.id);
    expect(queue.requests).toContainEqual({
      payoutId: scheduled.id,
      version: released?.version,
      resumeEpoch: expect.any(Number),
    });
    expect(providerCalls()).toBe(0);
    expect(released?.status).toBe(PayoutStatus.Pending);
  });

  it("enqueues at most the tick's maximum, oldest first, and leaves the rest to the next tick", async () => {
    const pending = await pendingPayouts(5);
    const queue = new RecordingQueue();

    const report = await payoutSweeper(h.engine).dispatch(queue, { pageSize: 2, maxEnqueued: 3 });

    expect(report).toMatchObject({ enqueued: 3, leftOver: true });
    expect(queue.requests).toHaveLength(3);
    // Earlier tests' payouts may still be due: what matters is that the newest ones wait for the next tick.
    const ids = queue.requests.map((request) => request.payoutId);
    expect(ids).not.toContain(pending.at(-1)?.id);
    expect(providerCalls()).toBe(0);
  });

  it('does not enqueue a payout waiting for its next attempt', async () => {
    const [payout] = await pendingPayouts(1);
    if (!payout) throw new Error('no payout');
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 1 });
    await h.engine.submit(payout.id);
    expect((await h.engine.get(payout.id))?.nextActionAt).toBeDefined();
    const queue = new RecordingQueue();
    await payoutSweeper(h.engine).dispatch(queue);
    expect(queue.requests.map((request) => request.payoutId)).not.toContain(payout.id);
  });
});

describe('the submission worker', () => {
  it('pays every payout of a batch once, all at once', async () => {
    const payouts = await pendingPayouts(5);
    const requests = payouts.map((payout) => ({ payoutId: payout.id, version: payout.version }));
    const { response, report } = await runSubmissionBatch(
      h.engine,
      sqsEvent(requests),
      FRESH_INVOCATION_MS,
      h.logger,
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(report).toMatchObject({ received: 5, sent: 5, skipped: 0, outcomes: { succeeded: 5 } });
    for (const payout of payouts) {
      expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
      expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    }
  });

  it('sends nothing for a redelivered message or a duplicate in the same batch: the claim is taken', async () => {
    const [payout] = await pendingPayouts(1);
    if (!payout) throw new Error('no payout');
    const request = { payoutId: payout.id, version: payout.version };
    const first = await runSubmissionBatch(
      h.engine,
      sqsEvent([request, request, request]),
      FRESH_INVOCATION_MS,
      h.logger,
    );
    expect(first.report).toMatchObject({ sent: 1, skipped: 2 });
    const redelivered = await runSubmissionBatch(
      h.engine,
      sqsEvent([request]),
      FRESH_INVOCATION_MS,
      h.logger,
    );
    expect(redelivered.report).toMatchObject({ sent: 0, skipped: 1 });
    expect(redelivered.response.batchItemFailures).toEqual([]);
    expect(providerCalls()).toBe(1);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('hands back exactly the message whose payout could not be read, and pays the others', async () => {
    const payouts = await pendingPayouts(3);
    const unreadable = payouts[1]?.id;
    // The store unreachable for one payout: no real DynamoDB Local fault fails a single GetItem.
    const store = replaceMethod(h.store, 'get', async (id: string) => {
      if (id === unreadable) throw new Error('simulated: store unreachable');
      return h.store.get(id);
    });
    const engine = h.engineWith({ store });
    const requests = payouts.map((payout) => ({ payoutId: payout.id, version: payout.version }));
    const logger = new CapturingLogger();
    const { response, report } = await runSubmissionBatch(
      engine,
      sqsEvent(requests),
      FRESH_INVOCATION_MS,
      logger,
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(report).toMatchObject({ sent: 2, handedBack: 1 });
    expect((await h.engine.get(unreadable ?? ''))?.status).toBe(PayoutStatus.Pending);
  });

  it('hands back an unreadable message and the later messages of a failed message group', async () => {
    const [payout] = await pendingPayouts(1);
    if (!payout) throw new Error('no payout');
    const event = sqsEvent([{ payoutId: payout.id, version: payout.version }]);
    const poison = {
      ...event.Records[0],
      messageId: 'poison',
      body: '{"payoutId":',
      attributes: { ...event.Records[0]?.attributes, MessageGroupId: 'g' },
    } as SQSEvent['Records'][number];
    const later = {
      ...poison,
      messageId: 'later',
      body: JSON.stringify({ payoutId: payout.id, version: payout.version }),
    };
    const { response } = await runSubmissionBatch(
      h.engine,
      { Records: [poison, later, ...event.Records] },
      FRESH_INVOCATION_MS,
      h.logger,
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'poison' }, { itemIdentifier: 'later' }]);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('starts nothing it could not finish before the deadline, and hands it back', async () => {
    const [payout] = await pendingPayouts(1);
    if (!payout) throw new Error('no payout');
    const { response } = await runSubmissionBatch(
      h.engine,
      sqsEvent([{ payoutId: payout.id, version: payout.version }]),
      30_000,
      h.logger,
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
    expect(providerCalls()).toBe(0);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Pending);
  });

  it('sends each payout at its slot of the fleet-wide pace, and a 429 holds back every later slot', async () => {
    const fixed = 5_000_000;
    const limiter = new DynamoDbRateLimiter(pacerTable.client, pacerTable.tableName, {
      perSecond: 10,
      now: () => fixed,
    });
    const payouts = await pendingPayouts(3);
    const slept: number[] = [];
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 1 });
    const requests = payouts.map((payout) => ({ payoutId: payout.id, version: payout.version }));
    const { report } = await runSubmissionBatch(h.engine, sqsEvent(requests), FRESH_INVOCATION_MS, h.logger, {
      limiter,
      sleep: async (ms) => void slept.push(ms),
      clock: () => fixed,
    });
    // Two payouts wait for their slots (10/s); the one that met the 429 then waits out its Retry-After (1 s)
    // to be claimed again, but this test's clock does not move, so its claim finds it not yet due and leaves
    // it to the next tick (the next test rides a 429 out).
    expect(slept).toEqual([100, 200, 1_001]);
    expect(report).toMatchObject({ sent: 3, outcomes: { succeeded: 2, not_sent: 1 } });
    // The payout that met the 429 is pending, its attempt not counted; every worker's next slot is after it.
    const limited = (await Promise.all(payouts.map((payout) => h.engine.get(payout.id)))).find(
      (payout) => payout?.status === PayoutStatus.Pending,
    );
    expect(limited?.rateLimitedCount).toBe(1);
    expect(await limiter.reserve(1)).toEqual([fixed + 1_000]);
  });

  it('rides out a 429 in the same invocation: claims the payout again after its Retry-After and pays it once', async () => {
    const limiter = new DynamoDbRateLimiter(pacerTable.client, pacerTable.tableName, {
      perSecond: 10,
      now: () => h.clock.now().getTime(),
    });
    const [payout] = await pendingPayouts(1);
    if (!payout) throw new Error('no payout');
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 1 });
    const slept: number[] = [];
    const { response, report } = await runSubmissionBatch(
      h.engine,
      sqsEvent([{ payoutId: payout.id, version: payout.version }]),
      FRESH_INVOCATION_MS,
      h.logger,
      {
        limiter,
        sleep: async (ms) => {
          slept.push(ms);
          h.clock.advance(ms);
        },
        clock: () => h.clock.now().getTime(),
      },
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(report).toMatchObject({ sent: 1, outcomes: { succeeded: 1 } });
    // It waited for its Retry-After, then for its slot after the fleet's cool-down, and was sent twice: one 429,
    // one payment.
    expect(slept[0]).toBe(1_001);
    expect(providerCalls()).toBe(2);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    expect(await h.engine.get(payout.id)).toMatchObject({
      status: PayoutStatus.Succeeded,
      rateLimitedCount: 1,
    });
  });

  it('leaves a 429 to the next tick when the invocation may start nothing more', async () => {
    const limiter = new DynamoDbRateLimiter(pacerTable.client, pacerTable.tableName, {
      perSecond: 10,
      now: () => h.clock.now().getTime(),
    });
    const [payout] = await pendingPayouts(1);
    if (!payout) throw new Error('no payout');
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 1 });
    // A second more than the worker's stop-starting margin: the first claim may start, a retry a second later
    // may not.
    const { response, report } = await runSubmissionBatch(
      h.engine,
      sqsEvent([{ payoutId: payout.id, version: payout.version }]),
      WORKER_STOP_STARTING_BEFORE_DEADLINE_MS + 1_000,
      h.logger,
      { limiter, sleep: async (ms) => void h.clock.advance(ms), clock: () => h.clock.now().getTime() },
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(report).toMatchObject({ sent: 1, outcomes: { not_sent: 1 } });
    expect(providerCalls()).toBe(1);
    expect(await h.engine.get(payout.id)).toMatchObject({
      status: PayoutStatus.Pending,
      rateLimitedCount: 1,
    });
  });

  it('sends a payout that missed its slot at a new one, so a late send never crowds the sends on time', async () => {
    const start = 7_000_000;
    let clock = start;
    await withOwnPacer({ perSecond: 10, now: () => clock }, async (limiter) => {
      const payouts = await pendingPayouts(2);
      const slept: number[] = [];
      // The first timer fires 60 ms late (a busy event loop): more than MAX_SEND_LATENESS_MS after its slot.
      let lateBy = 60;
      const requests = payouts.map((payout) => ({ payoutId: payout.id, version: payout.version }));
      const { report } = await runSubmissionBatch(
        h.engine,
        sqsEvent(requests),
        FRESH_INVOCATION_MS,
        h.logger,
        {
          limiter,
          sleep: async (ms) => {
            slept.push(ms);
            clock += ms + lateBy;
            lateBy = 0;
          },
          clock: () => clock,
        },
      );
      expect(60).toBeGreaterThan(MAX_SEND_LATENESS_MS);
      // Slots at +0 and +100 ms (10/s). The second woke at +160: its slot was given up for the next one,
      // +200, which it waited 40 ms for; both were paid once.
      expect(slept).toEqual([100, 40]);
      expect(report).toMatchObject({ sent: 2, outcomes: { succeeded: 2 } });
      expect(providerCalls()).toBe(2);
      for (const payout of payouts) expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
      // Three slots were taken from the fleet's pacer: the next worker's is the fourth.
      expect(await limiter.reserve(1)).toEqual([start + 300]);
    });
  });

  it('leaves late after MAX_SLOTS_PER_SEND missed slots rather than give up a claimed payout', async () => {
    let clock = 8_000_000;
    await withOwnPacer({ perSecond: 10, now: () => clock }, async (limiter) => {
      await limiter.reserve(1);
      const [payout] = await pendingPayouts(1);
      if (!payout) throw new Error('no payout');
      const slept: number[] = [];
      // Every timer fires 60 ms late.
      const { report } = await runSubmissionBatch(
        h.engine,
        sqsEvent([{ payoutId: payout.id, version: payout.version }]),
        FRESH_INVOCATION_MS,
        h.logger,
        {
          limiter,
          sleep: async (ms) => {
            slept.push(ms);
            clock += ms + 60;
          },
          clock: () => clock,
        },
      );
      expect(slept).toHaveLength(MAX_SLOTS_PER_SEND);
      expect(report).toMatchObject({ sent: 1, outcomes: { succeeded: 1 } });
      expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    });
  });

  it("reads each claim's pause while the batch reserves its send slots, and sends once both are back", async () => {
    // A pacer of its own and a clock that does not move: no slot is ever missed, so a reservation counted here is
    // the batch's, never a missed slot's replacement (which a loaded machine would otherwise make).
    const fixed = 11_000_000;
    await withOwnPacer({ perSecond: 1_000, now: () => fixed }, async (limiter) => {
      let reservations = 0;
      const countingLimiter = replaceMethod(
        limiter,
        'reserve',
        (...args: Parameters<typeof limiter.reserve>) => {
          reservations++;
          return limiter.reserve(...args);
        },
      );
      // How many reservations had gone out when each pause read answered: one, if the two go out together.
      const reservationsAtPauseAnswer: number[] = [];
      const store = replaceMethod(h.store, 'getControls', async () => {
        const controls = await h.store.getControls();
        reservationsAtPauseAnswer.push(reservations);
        return controls;
      });
      const payouts = await pendingPayouts(2);
      const { response, report } = await runSubmissionBatch(
        h.engineWith({ store }),
        sqsEvent(payouts.map((payout) => ({ payoutId: payout.id, version: payout.version }))),
        FRESH_INVOCATION_MS,
        h.logger,
        { limiter: countingLimiter, sleep: async () => undefined, clock: () => fixed },
      );
      expect(response.batchItemFailures).toEqual([]);
      expect(report).toMatchObject({ sent: 2, outcomes: { succeeded: 2 } });
      // Both claims' reads answered after the batch's one reservation had gone out; the second payout's slot is
      // 1 ms after the first, so it waits, and reads the pause once more before it leaves.
      expect(reservationsAtPauseAnswer).toEqual([1, 1, 1]);
      expect(reservations).toBe(1);
      for (const payout of payouts) expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    });
  });

  it('sends nothing when the pause lands after the claims committed, though their slots were reserved', async () => {
    const limiter = new DynamoDbRateLimiter(pacerTable.client, pacerTable.tableName, { perSecond: 1_000 });
    // Another process (the ops CLI, say) pauses the moment this worker's claims have committed, before the
    // pause reads that follow them: the slots are reserved meanwhile and go unused.
    let pausing: Promise<unknown> | undefined;
    const store = replaceMethod(h.store, 'getControls', async () => {
      pausing ??= pausePayouts(h.engine.ctx, systemPrincipal('ops-cli'), 'landed after the claims');
      await pausing;
      return h.store.getControls();
    });
    const payouts = await pendingPayouts(2);
    try {
      const { response, report } = await runSubmissionBatch(
        h.engineWith({ store }),
        sqsEvent(payouts.map((payout) => ({ payoutId: payout.id, version: payout.version }))),
        FRESH_INVOCATION_MS,
        h.logger,
        { limiter },
      );
      expect(response.batchItemFailures).toEqual([]);
      expect(report).toMatchObject({ sent: 0, skipped: 2 });
      expect(providerCalls()).toBe(0);
      for (const payout of payouts) {
        const { payout: after, audit } = await h.getWithAudit(payout.id);
        expect(after).toMatchObject({ status: PayoutStatus.Pending, submissionCount: 0 });
        expect(audit.map((event) => event.to)).toEqual(['pending', 'submitting', 'pending']);
      }
    } finally {
      await resumePayouts(h.engine.ctx, systemPrincipal('ops-cli'));
    }
  });

  it('sends nothing when the pause lands while a claimed payout waits for its slot, and gives the claim back', async () => {
    const fixed = 12_000_000;
    await withOwnPacer({ perSecond: 10, now: () => fixed }, async (limiter) => {
      // The fleet is held back 5 s (a cool-down after a 429): the payout's slot is 5 s after its claim and its
      // first pause read, and the operator pauses while it waits.
      await limiter.coolDown(fixed + 5_000);
      const [payout] = await pendingPayouts(1);
      if (!payout) throw new Error('no payout');
      const waits: number[] = [];
      try {
        const { response, report } = await runSubmissionBatch(
          h.engine,
          sqsEvent([{ payoutId: payout.id, version: payout.version }]),
          FRESH_INVOCATION_MS,
          h.logger,
          {
            limiter,
            clock: () => fixed,
            sleep: async (ms) => {
              waits.push(ms);
              await pausePayouts(h.engine.ctx, systemPrincipal('ops-cli'), 'landed while the payout waited');
            },
          },
        );
        expect(waits).toEqual([5_000]);
        expect(response.batchItemFailures).toEqual([]);
        expect(report).toMatchObject({ sent: 0, skipped: 1 });
        expect(providerCalls()).toBe(0);
        const { payout: after, audit } = await h.getWithAudit(payout.id);
        expect(after).toMatchObject({ status: PayoutStatus.Pending, submissionCount: 0 });
        expect(audit.map((event) => event.to)).toEqual(['pending', 'submitting', 'pending']);
      } finally {
        await resumePayouts(h.engine.ctx, systemPrincipal('ops-cli'));
      }
    });
  });

  it('gives a claim back unsent when its slot is too far away, and does not hand the message back', async () => {
    const fixed = 9_000_000;
    const limiter = new DynamoDbRateLimiter(pacerTable.client, pacerTable.tableName, {
      perSecond: 10,
      now: () => fixed,
    });
    await limiter.coolDown(fixed + 60_000);
    const [payout] = await pendingPayouts(1);
    if (!payout) throw new Error('no payout');
    const { response, report } = await runSubmissionBatch(
      h.engine,
      sqsEvent([{ payoutId: payout.id, version: payout.version }]),
      FRESH_INVOCATION_MS,
      h.logger,
      { limiter, sleep: async () => undefined, clock: () => fixed },
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(report).toMatchObject({ sent: 0, skipped: 1 });
    expect(providerCalls()).toBe(0);
    expect(await h.engine.get(payout.id)).toMatchObject({ status: PayoutStatus.Pending, submissionCount: 0 });
  });
});
