import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalForbiddenError } from '../../lib/controls/index.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import { RefundExceedsAmountPaidError } from '../../lib/refunds/errors.js';
import { type CreateRefundRequest, REFUND_CAP_COUNTER, RefundStatus } from '../../lib/refunds/model.js';
import { RefundSender } from '../../lib/refunds/refund-sender.js';
import { type RefundLimits, RefundService } from '../../lib/refunds/refund-service.js';
import { InMemoryRefundStore } from '../../lib/refunds/store/in-memory-refund-store.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { ManualClock } from '../../lib/shared/clock.js';
import {
  IdempotencyConflictError,
  InvalidTransitionError,
  ValidationError,
} from '../../lib/shared/errors.js';
import { silentLogger } from '../../lib/shared/logger.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';

/**
 * The refund service and sender against the store's port in memory (InMemoryRefundStore) and the provider sandbox:
 * admission, four eyes, the pause and the daily cap, replays, and the refund whose outcome is unknown. The table's
 * own rules are tested against DynamoDB Local (refund-store.contract.test.ts, refund-controls.test.ts).
 */
let sandbox: Sandbox;
let client: ProviderClient;
const alice = { id: 'alice', kind: 'user' } as const;
const bob = { id: 'bob', kind: 'user' } as const;
const carol = { id: 'carol', kind: 'user' } as const;

beforeAll(async () => {
  sandbox = await startSandbox();
  client = new ProviderClient({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
  });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

function fresh(limits: Partial<RefundLimits> = {}) {
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  const store = new InMemoryRefundStore();
  const limited = { ...defaultEngineConfig, ...limits };
  const options = { store, provider: client, clock, limits: limited, logger: silentLogger };
  const capDay = () => calendarDayIn(defaultEngineConfig.capTimeZone, clock.now());
  return { clock, store, service: new RefundService(options), sender: new RefundSender(options), capDay };
}
type Setup = ReturnType<typeof fresh>;

const refundCalls = () => sandbox.stats().requests['/refund'] ?? 0;
const paidTransaction = (naira: number) => {
  const found = sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid === naira);
  if (!found) throw new Error(`the sandbox has no transaction with ${naira} paid`);
  return found.id;
};
let keys = 0;
const refundOf = (transactionId: string, amount: number): CreateRefundRequest => ({
  transactionId,
  amount,
  customerNote: 'sorry',
  merchantNote: `unit refund ${++keys}`,
});
const ask = (setup: Setup, request: CreateRefundRequest, actor = alice) =>
  setup.service.request({ request, idempotencyKey: `rf-${request.merchantNote}`, actor });

describe('admitting a refund', () => {
  it('records a refund below the threshold, sends it once and holds its share of what was paid', async () => {
    const setup = fresh();
    const tx = paidTransaction(2_000);
    const before = refundCalls();
    const { refund, replayed } = await ask(setup, refundOf(tx, 50_000));
    expect([refund.status, replayed]).toEqual([RefundStatus.Pending, false]);
    expect(refundCalls()).toBe(before + 1);
    expect(await setup.store.refundedTotal(tx)).toBe(50_000);
    expect(setup.store.controls.capTotal(REFUND_CAP_COUNTER, setup.capDay())).toBe(50_000);
    const { audit } = await setup.service.getWithAudit(refund.id);
    expect(audit.map((event) => event.to)).toEqual(['requested', 'sending', 'pending']);
  });

  it('refuses a refund above the maximum before reading or sending, and one past what was paid', async () => {
    const setup = fresh({ maxInstructionKobo: 500_000 });
    const tx = paidTransaction(2_000);
    const before = refundCalls();
    await expect(ask(setup, refundOf(tx, 500_001))).rejects.toBeInstanceOf(ValidationError);
    await ask(setup, refundOf(tx, 150_000));
    await expect(ask(setup, refundOf(tx, 60_000))).rejects.toBeInstanceOf(RefundExceedsAmountPaidError);
    expect(refundCalls()).toBe(before + 1);
    expect(await setup.store.refundedTotal(tx)).toBe(150_000);
  });
});

describe('replaying a request', () => {
  it('returns the recorded refund for the same key and body and sends nothing again; another body is a conflict', async () => {
    const setup = fresh();
    const request = refundOf(paidTransaction(2_000), 10_000);
    const first = await ask(setup, request);
    const before = refundCalls();
    const again = await ask(setup, request);
    expect(again).toEqual({ refund: first.refund, replayed: true });
    await expect(
      setup.service.request({
        request: { ...request, amount: 20_000 },
        idempotencyKey: `rf-${request.merchantNote}`,
        actor: alice,
      }),
    ).rejects.toBeInstanceOf(IdempotencyConflictError);
    expect(refundCalls()).toBe(before);
  });
});

describe('four eyes', () => {
  const limits = { approvalThresholdKobo: 500_000 };

  it('holds a refund at the threshold for a second person, never its requester, and sends it once on approval', async () => {
    const setup = fresh(limits);
    const before = refundCalls();
    const { refund } = await ask(setup, refundOf(paidTransaction(15_000), 500_000));
    expect(refund.status).toBe(RefundStatus.PendingApproval);
    setup.clock.advance(24 * 60 * 60_000);
    await setup.sender.sweep();
    await expect(setup.service.approve(refund.id, { id: ' ALICE ', kind: 'user' })).rejects.toBeInstanceOf(
      ApprovalForbiddenError,
    );
    expect(refundCalls()).toBe(before);

    const approvals = await Promise.allSettled([
      setup.service.approve(refund.id, bob),
      setup.service.approve(refund.id, carol),
    ]);
    expect(approvals.filter((approval) => approval.status === 'fulfilled')).toHaveLength(1);
    expect((await setup.service.get(refund.id)).status).toBe(RefundStatus.Pending);
    expect(refundCalls()).toBe(before + 1);
  });

  it('gives back the share of a refund cancelled while it waits for approval', async () => {
    const setup = fresh(limits);
    const tx = paidTransaction(15_000);
    const { refund } = await ask(setup, refundOf(tx, 1_500_000));
    expect(await setup.store.refundedTotal(tx)).toBe(1_500_000);
    expect(await setup.service.cancel(refund.id, bob)).toMatchObject({ status: RefundStatus.Cancelled });
    expect(await setup.store.refundedTotal(tx)).toBe(0);
    await expect(setup.service.approve(refund.id, carol)).rejects.toBeInstanceOf(InvalidTransitionError);
  });
});

describe('the controls of a send', () => {
  it('claims nothing while payouts are paused and sends the refund once from the sweep after the resume', async () => {
    const setup = fresh();
    setup.store.controls.pause();
    const before = refundCalls();
    const { refund } = await ask(setup, refundOf(paidTransaction(15_000), 100_000));
    expect(refund.status).toBe(RefundStatus.Requested);
    setup.store.controls.resume();
    setup.clock.advance(61_000);
    await Promise.all([setup.sender.sweep(), setup.sender.sweep()]);
    expect((await setup.service.get(refund.id)).status).toBe(RefundStatus.Pending);
    expect(refundCalls()).toBe(before + 1);
  });

  it('rejects a refund past the merchant daily cap without sending it, giving back its share', async () => {
    const setup = fresh({ dailyCapKobo: 1_000_000 });
    await ask(setup, refundOf(paidTransaction(15_000), 600_000));
    const before = refundCalls();
    const tx = paidTransaction(50_000);
    const { refund } = await ask(setup, refundOf(tx, 500_000));
    expect(refund).toMatchObject({ status: RefundStatus.Rejected, failure: { code: 'DAILY_CAP_EXCEEDED' } });
    expect(refundCalls()).toBe(before);
    expect(setup.store.controls.capTotal(REFUND_CAP_COUNTER, setup.capDay())).toBe(600_000);
    expect(await setup.store.refundedTotal(tx)).toBe(0);
  });
});

describe('a refund whose outcome is unknown', () => {
  it('is never resent, and is settled as not sent only when a second person confirms', async () => {
    const setup = fresh();
    const tx = paidTransaction(2_000);
    sandbox.injectFault({ path: '/refund', fault: 'timeout-after-commit', times: 1 });
    const { refund } = await ask(setup, refundOf(tx, 200_000));
    expect(refund.status).toBe(RefundStatus.Unknown);
    const sent = refundCalls();
    setup.clock.advance(24 * 60 * 60_000);
    await setup.sender.sweep();
    expect(refundCalls()).toBe(sent);

    const resolution = { outcome: 'not_sent', note: 'not in the dashboard' } as const;
    expect((await setup.service.resolve(refund.id, bob, resolution)).applied).toBe(false);
    expect(await setup.store.refundedTotal(tx)).toBe(200_000);
    await expect(setup.service.resolve(refund.id, bob, resolution)).rejects.toBeInstanceOf(
      ApprovalForbiddenError,
    );
    const resolved = await setup.service.resolve(refund.id, carol, resolution);
    expect(resolved).toMatchObject({ applied: true, refund: { status: RefundStatus.Cancelled } });
    expect(await setup.store.refundedTotal(tx)).toBe(0);
    expect(setup.store.controls.capTotal(REFUND_CAP_COUNTER, setup.capDay())).toBe(0);
  });
});
