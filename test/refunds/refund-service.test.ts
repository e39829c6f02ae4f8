import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import {
  MAX_REFUND_RETRY_DELAY_MS,
  MAX_REFUND_SEND_ATTEMPTS,
  REFUND_RETRY_DELAY_MS,
  RefundStatus,
} from '../../lib/refunds/model.js';
import { RefundService } from '../../lib/refunds/refund-service.js';
import { DynamoDbRefundStore } from '../../lib/refunds/refund-store.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { ConcurrentModificationError } from '../../lib/shared/errors.js';
import { fingerprint } from '../../lib/shared/ids.js';
import { createTestTable } from '../support/dynamodb.js';
import { replaceMethod } from '../support/replace-method.js';

let sandbox: Sandbox;
let client: ProviderClient;
let store: DynamoDbRefundStore;
let service: RefundService;
let destroy: () => void;
const clock = new ManualClock('2026-03-02T08:00:00.000Z');
const actor = { id: 'alice', kind: 'user' } as const;

beforeAll(async () => {
  const table = await createTestTable('refunds');
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
