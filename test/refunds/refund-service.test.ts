import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUND_STOP_STARTING_BEFORE_DEADLINE_MS, runDueSweep } from '../../lib/jobs/scheduled.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import type { RequestOptions } from '../../lib/provider/types.js';
import {
  MAX_REFUND_RETRY_DELAY_MS,
  MAX_REFUND_SEND_ATTEMPTS,
  REFUND_CAP_COUNTER,
  REFUND_RETRY_DELAY_MS,
  REFUND_SEND_DEADLINE_MS,
  RefundStatus,
} from '../../lib/refunds/model.js';
import { RefundSender } from '../../lib/refunds/refund-sender.js';
import { RefundService } from '../../lib/refunds/refund-service.js';
import { DynamoDbRefundStore } from '../../lib/refunds/store/dynamodb-refund-store.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { ConcurrentModificationError } from '../../lib/shared/errors.js';
import { fingerprint } from '../../lib/shared/ids.js';
import { silentLogger } from '../../lib/shared/logger.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import { createTestTable } from '../support/dynamodb.js';
import { replaceMethod } from '../support/replace-method.js';

let sandbox: Sandbox;
let client: ProviderClient;
let store: DynamoDbRefundStore;
let service: RefundService;
let destroy: () => void;
let table: Awaited<ReturnType<typeof createTestTable>>;
const clock = new ManualClock('2026-03-02T08:00:00.000Z');
const actor = { id: 'alice', kind: 'user' } as const;

beforeAll(async () => {
  table = await createTestTable('refunds');
  destroy = () => table.client.destroy();
  sandbox = await startSandbox();
  client = new ProviderClient({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
  });
  store = new DynamoDbRefundStore(table.client, table.tableName);
  service = new RefundService({ store, provider: client, clock });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
  destroy();
});

const refundCalls = () => sandbox.stats().requests['/refund'] ?? 0;
const request = () => {
  const transaction = sandbox.fixtures().paymentLinkTransactions[0];
  return {
    transactionId: transaction?.id ?? '',
    amount: 1_000,
    customerNote: 'sorry',
    merchantNote: 'double charge',
  };
};

describe('refund requests', () => {
  it('sends a refund that was recorded but never sent when the request is replayed, once for concurrent replays', async () => {
    // A crash right after recording: the refund exists as `requested` and the provider never heard of it.
    const stranded = {
      id: 'REFUNDSTRANDED1',
      idempotencyKey: 'rf-stranded',
      requestFingerprint: '',
      transactionId: request().transactionId,
      amountKobo: 1_000,
      customerNote: 'sorry',
      merchantNote: 'double charge',
      status: RefundStatus.Requested,
      version: 1,
      requestedBy: actor,
      createdAt: clock.now().toISOString(),
      updatedAt: clock.now().toISOString(),
    };
    await store.create({ ...stranded, requestFingerprint: fingerprint(request()) });
    const before = refundCalls();

    const replays = await Promise.all(
      Array.from({ length: 5 }, () =>
        service.request({ request: request(), idempotencyKey: 'rf-stranded', actor }),
      ),
    );
    expect(refundCalls() - before).toBe(1);
    expect(replays.every((replay) => replay.replayed)).toBe(true);
    expect((await service.get(stranded.id)).status).toBe(RefundStatus.Pending);
  });

  it('sends a refund again only when nothing was sent before (rate limited), never one that may have arrived', async () => {
    sandbox.injectFault({ path: '/refund', fault: 'error-429', times: 1 });
    const first = await service.request({ request: request(), idempotencyKey: 'rf-limited', actor });
    expect(first.refund.status).toBe(RefundStatus.NotSent);
    const second = await service.request({ request: request(), idempotencyKey: 'rf-limited', actor });
    expect(second.refund.status).toBe(RefundStatus.Pending);

    sandbox.injectFault({ path: '/refund', fault: 'timeout-after-commit', times: 1 });
    const lost = await service.request({ request: request(), idempotencyKey: 'rf-lost', actor });
    expect(lost.refund.status).toBe(RefundStatus.Unknown);
    const before = refundCalls();
    const replay = await service.request({ request: request(), idempotencyKey: 'rf-lost', actor });
    expect(replay.refund.status).toBe(RefundStatus.Unknown);
    expect(refundCalls()).toBe(before);
  });

  it('sends, once, a refund whose claim committed but whose answer was lost', async () => {
    // DynamoDB Local cannot commit and then lose the answer, so the store is wrapped: the first claim commits,
    // then reports the conflict the SDK's retry of it would have met.
    let lost = false;
    const lossy = replaceMethod(store, 'update', async (before, after) => {
      const written = await store.update(before, after);
      if (!lost && after.status === RefundStatus.Sending) {
        lost = true;
        throw new ConcurrentModificationError('refund', after.id);
      }
      return written;
    });
    const before = refundCalls();
    const { refund } = await new RefundService({ store: lossy, provider: client, clock }).request({
      request: request(),
      idempotencyKey: 'rf-claim-lost',
      actor,
    });
    expect(lost).toBe(true);
    expect(refund.status).toBe(RefundStatus.Pending);
    expect(refundCalls() - before).toBe(1);
  });

  it('marks a refund whose sender vanished mid-call as unknown once its claim is old, without resending', async () => {
    const { refund } = await service.request({ request: request(), idempotencyKey: 'rf-vanished', actor });
    // Rewind it to a claim that never recorded an answer.
    const sending = {
      ...refund,
      status: RefundStatus.Sending,
      version: refund.version + 1,
      updatedAt: clock.now().toISOString(),
    };
    await store.update(refund, sending);
    const before = refundCalls();
    expect(
      (await service.request({ request: request(), idempotencyKey: 'rf-vanished', actor })).refund.status,
    ).toBe(RefundStatus.Sending);
    clock.advance(121_000);
    const after = await service.request({ request: request(), idempotencyKey: 'rf-vanished', actor });
    expect(after.refund.status).toBe(RefundStatus.Unknown);
    expect(after.refund.failure?.code).toBe('SENDING_LEASE_EXPIRED');
    expect(refundCalls()).toBe(before);
  });
});

describe('the refund sweep', () => {
  const stranded = (id: string, key: string) => ({
    id,
    idempotencyKey: key,
    requestFingerprint: fingerprint(request()),
    transactionId: request().transactionId,
    amountKobo: 1_000,
    customerNote: 'sorry',
    merchantNote: 'double charge',
    status: RefundStatus.Requested,
    version: 1,
    requestedBy: actor,
    createdAt: clock.now().toISOString(),
    updatedAt: clock.now().toISOString(),
  });

  it('sends a refund stranded after a crash once it is due, once even when sweeps run at once', async () => {
    await store.create(stranded('REFUNDSWEPT1', 'rf-swept'));
    const before = refundCalls();
    expect((await service.sweep()).looked).toBe(0);
    clock.advance(61_000);
    await Promise.all([service.sweep(), service.sweep(), service.sweep()]);
    expect(refundCalls() - before).toBe(1);
    expect((await service.get('REFUNDSWEPT1')).status).toBe(RefundStatus.Pending);
    // Settled refunds leave the work queue.
    clock.advance(10 * 60_000);
    expect((await service.sweep()).looked).toBe(0);
  });

  it('retries a refund the provider could not take, and hands a stale claim to a person without resending', async () => {
    sandbox.injectFault({ path: '/refund', fault: 'error-429', times: 1 });
    const { refund } = await service.request({ request: request(), idempotencyKey: 'rf-swept-429', actor });
    expect(refund.status).toBe(RefundStatus.NotSent);
    clock.advance(61_000);
    await service.sweep();
    expect((await service.get(refund.id)).status).toBe(RefundStatus.Pending);

    const { refund: claimed } = await service.request({
      request: request(),
      idempotencyKey: 'rf-swept-claim',
      actor,
    });
    await store.update(claimed, {
      ...claimed,
      status: RefundStatus.Sending,
      version: claimed.version + 1,
      updatedAt: clock.now().toISOString(),
    });
    const before = refundCalls();
    clock.advance(121_000);
    await service.sweep();
    expect((await service.get(claimed.id)).status).toBe(RefundStatus.Unknown);
    expect(refundCalls()).toBe(before);
  });
  it('retries a refund the provider cannot take with doubling waits, gives up after the last attempt, and a replay still tries', async () => {
    sandbox.injectFault({ path: '/refund', fault: 'error-429', times: 0 });
    try {
      const { refund } = await service.request({ request: request(), idempotencyKey: 'rf-backoff', actor });
      expect(refund).toMatchObject({ status: RefundStatus.NotSent, sendAttempts: 1 });
      // While the sweeper retries, the refund holds its share of the transaction's refunded total.
      const counted = await store.refundedTotal(refund.transactionId);
      for (let attempt = 1; attempt < MAX_REFUND_SEND_ATTEMPTS; attempt++) {
        const wait = Math.min(REFUND_RETRY_DELAY_MS * 2 ** (attempt - 1), MAX_REFUND_RETRY_DELAY_MS);
        const before = refundCalls();
        clock.advance(wait - 1_000);
        await service.sweep();
        expect(refundCalls()).toBe(before); // not yet due
        clock.advance(1_000);
        await service.sweep();
        expect(refundCalls()).toBe(before + 1);
        expect((await service.get(refund.id)).sendAttempts).toBe(attempt + 1);
      }
      const exhausted = await service.get(refund.id);
      expect(exhausted.status).toBe(RefundStatus.NotSent);
      expect(exhausted.failure?.code).toBe('SEND_ATTEMPTS_EXHAUSTED');
      // Given up on, nothing sent: its share is given back, and taken again by the replay that sends it.
      expect(await store.refundedTotal(refund.transactionId)).toBe(counted - refund.amountKobo);
      const before = refundCalls();
      clock.advance(7 * 24 * 60 * 60_000);
      await service.sweep();
      expect(refundCalls()).toBe(before);

      sandbox.clearFaults();
      const replay = await service.request({ request: request(), idempotencyKey: 'rf-backoff', actor });
      expect(replay.refund.status).toBe(RefundStatus.Pending);
      expect(refundCalls()).toBe(before + 1);
      expect(await store.refundedTotal(refund.transactionId)).toBe(counted);
    } finally {
      sandbox.clearFaults();
    }
  });
});

describe('the bounds of a refund send', () => {
  const stranded = (id: string) => ({
    id,
    idempotencyKey: `rf-${id}`,
    requestFingerprint: fingerprint(request()),
    transactionId: request().transactionId,
    amountKobo: 1_000,
    customerNote: 'sorry',
    merchantNote: 'double charge',
    status: RefundStatus.Requested,
    version: 1,
    requestedBy: actor,
    createdAt: clock.now().toISOString(),
    updatedAt: clock.now().toISOString(),
  });
  const idle = {
    engine: {
      sweep: async () => ({
        released: 0,
        missed: 0,
        submitted: 0,
        skipped: 0,
        outcomes: {},
        leftOver: false,
      }),
    },
    recurrences: {
      sweep: async () => ({
        read: 0,
        materialised: 0,
        late: 0,
        skipped: 0,
        completed: 0,
        conflicts: 0,
        leftOver: false,
      }),
    },
  };

  it("starts no refund with less than the sweep's refund stop margin left, and abandons a refund's provider call at its deadline", async () => {
    const calls: (RequestOptions | undefined)[] = [];
    const sender = new RefundSender({
      store,
      provider: {
        refunds: replaceMethod(client.refunds, 'create', (params, options) => {
          calls.push(options);
          return client.refunds.create(params, options);
        }),
      },
      limits: defaultEngineConfig,
      clock,
      logger: silentLogger,
    });
    await store.create(stranded('REFUNDBOUNDED01'));
    clock.advance(61_000);
    const before = refundCalls();
    // Less than the margin left: a refund started now could be cut off mid-call.
    const short = await runDueSweep(
      { ...idle, refunds: sender },
      REFUND_STOP_STARTING_BEFORE_DEADLINE_MS - 1,
    );
    expect(short.refunds.answered).toBe(0);
    expect(refundCalls()).toBe(before);
    expect((await service.get('REFUNDBOUNDED01')).status).toBe(RefundStatus.Requested);

    const fresh = await runDueSweep(
      { ...idle, refunds: sender },
      REFUND_STOP_STARTING_BEFORE_DEADLINE_MS + 30_000,
    );
    expect(fresh.refunds.answered).toBeGreaterThanOrEqual(1);
    expect((await service.get('REFUNDBOUNDED01')).status).toBe(RefundStatus.Pending);
    expect(refundCalls()).toBeGreaterThan(before);
    // Every call the sweep made is bounded by the deadline its stop margin is sized for, not the client's default.
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((options) => options?.deadlineMs === REFUND_SEND_DEADLINE_MS)).toBe(true);
  });

  it('gives back unsent a claim that committed after its send window passed, with its cap reservation and attempt', async () => {
    const day = calendarDayIn(defaultEngineConfig.capTimeZone, clock.now());
    const capBefore = await table.store.getCapUsage(REFUND_CAP_COUNTER, day);
    // DynamoDB Local answers at once: the claim's write is made to last until the window has passed.
    const sendBy = Date.now() + 2_000;
    const slowClaims = replaceMethod(store, 'update', async (before, after, change) => {
      if (after.status === RefundStatus.Sending) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, sendBy - Date.now()) + 10));
      }
      return store.update(before, after, change);
    });
    const slow = new RefundService({ store: slowClaims, provider: client, clock });
    const before = refundCalls();
    const { refund } = await slow.request(
      { request: request(), idempotencyKey: 'rf-window-in-claim', actor },
      { sendWindow: { sendBy, deadlineMs: 500 } },
    );
    expect(refund).toMatchObject({ status: RefundStatus.Requested });
    expect(refund.sendAttempts).toBeUndefined();
    expect(refund.capDay).toBeUndefined();
    expect(refundCalls()).toBe(before);
    expect(await table.store.getCapUsage(REFUND_CAP_COUNTER, day)).toBe(capBefore);
    const { audit } = await service.getWithAudit(refund.id);
    expect(audit.map((event) => event.to)).toEqual(['requested', 'sending', 'requested']);

    // Past its window nothing is claimed at all; within one, it is sent.
    const late = await service.request(
      { request: request(), idempotencyKey: 'rf-window-in-claim', actor },
      { sendWindow: { sendBy: Date.now() - 1, deadlineMs: 500 } },
    );
    expect(late.refund.status).toBe(RefundStatus.Requested);
    expect(refundCalls()).toBe(before);
    const sent = await service.request(
      { request: request(), idempotencyKey: 'rf-window-in-claim', actor },
      { sendWindow: { sendBy: Date.now() + 60_000, deadlineMs: 5_000 } },
    );
    expect(sent.refund.status).toBe(RefundStatus.Pending);
    expect(refundCalls()).toBe(before + 1);
  });
});
