import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalForbiddenError } from '../../lib/controls/index.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import type { DynamoDbPayoutStore } from '../../lib/payouts/store/dynamodb-payout-store.js';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import { AcceptedRefunds } from '../../lib/refunds/accepted-refunds.js';
import { RefundExceedsAmountPaidError, RefundRefusedError } from '../../lib/refunds/errors.js';
import { type CreateRefundRequest, REFUND_CAP_COUNTER, RefundStatus } from '../../lib/refunds/model.js';
import { type RefundLimits, RefundService } from '../../lib/refunds/refund-service.js';
import { DynamoDbRefundStore } from '../../lib/refunds/store/dynamodb-refund-store.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { InvalidTransitionError, ValidationError } from '../../lib/shared/errors.js';
import { fingerprint } from '../../lib/shared/ids.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * Refunds pass the one control gate. Each test gets its own table (the refunded totals and
 * the daily cap live there) and talks to the sandbox over HTTP.
 */
let sandbox: Sandbox;
let client: ProviderClient;
const closers: (() => void)[] = [];
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
  for (const close of closers) close();
});

interface Setup {
  service: RefundService;
  store: DynamoDbRefundStore;
  payouts: DynamoDbPayoutStore;
  clock: ManualClock;
  /** The accepted items the daily statement reads. */
  accepted: AcceptedRefunds;
}

async function fresh(limits: Partial<RefundLimits> = {}): Promise<Setup> {
  const table = await createTestTable('refund-controls');
  closers.push(() => table.client.destroy());
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  const store = new DynamoDbRefundStore(table.client, table.tableName);
  const service = new RefundService({
    store,
    provider: client,
    clock,
    limits: { ...defaultEngineConfig, ...limits },
  });
  return {
    service,
    store,
    payouts: table.store,
    clock,
    accepted: new AcceptedRefunds(table.client, table.tableName),
  };
}

const refundCalls = () => sandbox.stats().requests['/refund'] ?? 0;
const infoCalls = () => sandbox.stats().requests['/transaction/info'] ?? 0;
/** A seeded payment-link transaction by what was paid on it, in naira. */
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
  merchantNote: `refund ${++keys}`,
});
const ask = (setup: Setup, request: CreateRefundRequest, actor = alice) =>
  setup.service.request({ request, idempotencyKey: `rf-${request.merchantNote}`, actor });

describe('the refunded total of a transaction never exceeds what was paid', () => {
  it('refuses a second 10,000 NGN refund of a 15,000 NGN transaction with a 422 naming amount, and sends nothing', async () => {
    const setup = await fresh();
    const tx = paidTransaction(15_000);
    const first = await ask(setup, refundOf(tx, 1_000_000));
    expect(first.refund.status).toBe(RefundStatus.Pending);
    const before = refundCalls();

    const second = ask(setup, refundOf(tx, 1_000_000));
    await expect(second).rejects.toBeInstanceOf(RefundExceedsAmountPaidError);
    await expect(second).rejects.toMatchObject({ path: 'amount' });
    await expect(second).rejects.toThrow(/above the 1500000 kobo paid \(1000000 kobo already refunded/);
    expect(refundCalls()).toBe(before);
    expect(await setup.store.refundedTotal(tx)).toBe(1_000_000);

    // What is left still fits, to the kobo, and not one kobo more.
    expect((await ask(setup, refundOf(tx, 500_000))).refund.status).toBe(RefundStatus.Pending);
    await expect(ask(setup, refundOf(tx, 1))).rejects.toBeInstanceOf(RefundExceedsAmountPaidError);
    expect(refundCalls()).toBe(before + 1);
    expect(await setup.store.refundedTotal(tx)).toBe(1_500_000);
  });

  it('refuses a single refund above what was paid without storing it, and one of an unpaid or unknown transaction naming transactionId', async () => {
    const setup = await fresh();
    const before = refundCalls();
    await expect(ask(setup, refundOf(paidTransaction(2_000), 200_001))).rejects.toMatchObject({
      path: 'amount',
    });
    await expect(ask(setup, refundOf(paidTransaction(0), 100))).rejects.toMatchObject({
      path: 'transactionId',
    });
    const unknown = ask(setup, refundOf('no-such-transaction', 100));
    await expect(unknown).rejects.toBeInstanceOf(RefundRefusedError);
    await expect(unknown).rejects.toMatchObject({ path: 'transactionId' });
    expect(refundCalls()).toBe(before);
    expect(await setup.store.refundedTotal(paidTransaction(2_000))).toBe(0);
  });

  it('accepts exactly the refunds that fit when concurrent refunds race past the total', async () => {
    const setup = await fresh();
    const tx = paidTransaction(15_000);
    const before = refundCalls();
    // Eight 4,000 NGN refunds at once on 15,000 NGN paid: three fit (12,000), five must be refused.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => ask(setup, refundOf(tx, 400_000))),
    );
    const accepted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(accepted).toHaveLength(3);
    expect(refused).toHaveLength(5);
    for (const reason of refused) expect(reason).toBeInstanceOf(RefundExceedsAmountPaidError);
    expect(refundCalls() - before).toBe(3);
    expect(await setup.store.refundedTotal(tx)).toBe(1_200_000);
  });

  it('gives back the share of a refund the provider refused, and keeps the share of one that may have reached it', async () => {
    const setup = await fresh();
    // Recorded, never sent (a crash), for a transaction the provider then refuses: a 404 on POST /refund.
    const request = refundOf('vanished-transaction', 300_000);
    const at = setup.clock.now().toISOString();
    await setup.store.create({
      id: 'REFUNDREFUSED01',
      idempotencyKey: `rf-${request.merchantNote}`,
      requestFingerprint: fingerprint(request),
      transactionId: request.transactionId,
      amountKobo: request.amount,
      customerNote: request.customerNote,
      merchantNote: request.merchantNote,
      status: RefundStatus.Requested,
      version: 1,
      requestedBy: alice,
      amountPaidKobo: 500_000,
      countsInTotal: true,
      createdAt: at,
      updatedAt: at,
    });
    expect(await setup.store.refundedTotal('vanished-transaction')).toBe(300_000);
    const day = calendarDayIn(defaultEngineConfig.capTimeZone, setup.clock.now());
    const refused = await ask(setup, request);
    expect(refused.refund).toMatchObject({ status: RefundStatus.Rejected, countsInTotal: false });
    expect(await setup.store.refundedTotal('vanished-transaction')).toBe(0);
    expect(await setup.payouts.getCapUsage(REFUND_CAP_COUNTER, day)).toBe(0);

    const tx = paidTransaction(2_000);
    sandbox.injectFault({ path: '/refund', fault: 'timeout-after-commit', times: 1 });
    const lost = await ask(setup, refundOf(tx, 150_000));
    expect(lost.refund.status).toBe(RefundStatus.Unknown);
    expect(await setup.store.refundedTotal(tx)).toBe(150_000);
    expect(await setup.payouts.getCapUsage(REFUND_CAP_COUNTER, day)).toBe(150_000);
    await expect(ask(setup, refundOf(tx, 50_001))).rejects.toBeInstanceOf(RefundExceedsAmountPaidError);
  });
});

describe('refunds pass the control gate', () => {
  it('refuses a refund above the per-payout maximum with a 400 naming amount, before reading or sending anything', async () => {
    const setup = await fresh({ maxInstructionKobo: 500_000 });
    const [reads, sends] = [infoCalls(), refundCalls()];
    const above = ask(setup, refundOf(paidTransaction(15_000), 500_001));
    await expect(above).rejects.toBeInstanceOf(ValidationError);
    await expect(above).rejects.toMatchObject({ issues: [{ path: 'amount' }] });
    expect([infoCalls(), refundCalls()]).toEqual([reads, sends]);
  });

  it('does not send a refund while payouts are paused, and sends it once when they resume', async () => {
    const setup = await fresh();
    await setup.payouts.setControls({ paused: true, reason: 'bank incident' });
    const before = refundCalls();
    const { refund } = await ask(setup, refundOf(paidTransaction(15_000), 100_000));
    expect(refund.status).toBe(RefundStatus.Requested);
    setup.clock.advance(61_000);
    await setup.service.sweep();
    expect(refundCalls()).toBe(before);
    expect((await setup.service.get(refund.id)).status).toBe(RefundStatus.Requested);

    await setup.payouts.setControls({ paused: false });
    setup.clock.advance(61_000);
    await Promise.all([setup.service.sweep(), setup.service.sweep()]);
    expect((await setup.service.get(refund.id)).status).toBe(RefundStatus.Pending);
    expect(refundCalls()).toBe(before + 1);
  });

  it('counts refunds against the merchant daily cap like payouts from the merchant wallet, and refuses one past it', async () => {
    const setup = await fresh({ dailyCapKobo: 1_000_000 });
    const day = calendarDayIn(defaultEngineConfig.capTimeZone, setup.clock.now());
    await setup.payouts.setControls({ paused: false });
    await ask(setup, refundOf(paidTransaction(15_000), 600_000));
    expect(await setup.payouts.getCapUsage(REFUND_CAP_COUNTER, day)).toBe(600_000);

    const before = refundCalls();
    const tx = paidTransaction(50_000);
    const { refund } = await ask(setup, refundOf(tx, 500_000));
    expect(refund).toMatchObject({ status: RefundStatus.Rejected, failure: { code: 'DAILY_CAP_EXCEEDED' } });
    expect(refundCalls()).toBe(before);
    expect(await setup.payouts.getCapUsage(REFUND_CAP_COUNTER, day)).toBe(600_000);
    expect(await setup.store.refundedTotal(tx)).toBe(0);
  });
});

describe('refunds at or above the approval threshold need a second person', () => {
  const limits = { approvalThresholdKobo: 500_000 };

  it('holds a refund above the threshold in pending_approval and sends nothing, however long it waits', async () => {
    const setup = await fresh(limits);
    const before = refundCalls();
    const { refund } = await ask(setup, refundOf(paidTransaction(15_000), 500_000));
    expect(refund.status).toBe(RefundStatus.PendingApproval);
    setup.clock.advance(7 * 24 * 60 * 60_000);
    await setup.service.sweep();
    expect((await ask(setup, { ...refundOf(refund.transactionId, 0), ...pick(refund) })).replayed).toBe(true);
    expect(refundCalls()).toBe(before);
    expect((await setup.service.get(refund.id)).status).toBe(RefundStatus.PendingApproval);
    // Its share is held while it waits: the transaction has 10,000 NGN left, not 15,000.
    await expect(ask(setup, refundOf(refund.transactionId, 1_000_001))).rejects.toBeInstanceOf(
      RefundExceedsAmountPaidError,
    );
  });

  it('refuses the requester approving their own refund, under any spelling of their identity, and a system', async () => {
    const setup = await fresh(limits);
    const before = refundCalls();
    const { refund } = await ask(setup, refundOf(paidTransaction(15_000), 600_000));
    for (const approver of [alice, { id: ' ALICE ', kind: 'user' } as const]) {
      await expect(setup.service.approve(refund.id, approver)).rejects.toBeInstanceOf(ApprovalForbiddenError);
    }
    await expect(
      setup.service.approve(refund.id, { id: 'system:recurrence', kind: 'system' }),
    ).rejects.toBeInstanceOf(ApprovalForbiddenError);
    expect((await setup.service.get(refund.id)).status).toBe(RefundStatus.PendingApproval);
    expect(refundCalls()).toBe(before);
  });

  it('sends a refund once when another person approves it, even when two approve at once, and audits who did what', async () => {
    const setup = await fresh(limits);
    const before = refundCalls();
    const { refund } = await ask(setup, refundOf(paidTransaction(15_000), 600_000));
    const approvals = await Promise.allSettled([
      setup.service.approve(refund.id, bob),
      setup.service.approve(refund.id, carol),
    ]);
    expect(approvals.filter((approval) => approval.status === 'fulfilled')).toHaveLength(1);
    expect(refundCalls()).toBe(before + 1);
    const { refund: sent, audit } = await setup.service.getWithAudit(refund.id);
    expect(sent.status).toBe(RefundStatus.Pending);
    expect(sent.requestedBy).toEqual(alice);
    expect([bob.id, carol.id]).toContain(sent.approvedBy?.id);
    expect(audit.map((event) => [event.from, event.to, event.actor.id])).toEqual([
      [undefined, 'pending_approval', 'alice'],
      ['pending_approval', 'requested', sent.approvedBy?.id],
      ['requested', 'sending', 'system:refunds'],
      ['sending', 'pending', 'system:refunds'],
    ]);
    await expect(setup.service.approve(refund.id, bob)).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(refundCalls()).toBe(before + 1);
  });
});

describe('withdrawing a refund', () => {
  it('gives back the share of a refund cancelled while it waits for approval, and never sends it', async () => {
    const setup = await fresh({ approvalThresholdKobo: 500_000 });
    const tx = paidTransaction(15_000);
    const before = refundCalls();
    const { refund } = await ask(setup, refundOf(tx, 1_500_000));
    expect(await setup.store.refundedTotal(tx)).toBe(1_500_000);
    const cancelled = await setup.service.cancel(refund.id, bob, 'customer kept the goods');
    expect(cancelled).toMatchObject({ status: RefundStatus.Cancelled, countsInTotal: false });
    expect(await setup.store.refundedTotal(tx)).toBe(0);
    await expect(setup.service.approve(refund.id, carol)).rejects.toBeInstanceOf(InvalidTransitionError);
    expect((await ask(setup, refundOf(tx, 400_000))).refund.status).toBe(RefundStatus.Pending);
    await expect(setup.service.cancel(refund.id, bob)).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(refundCalls()).toBe(before + 1);
    const { audit } = await setup.service.getWithAudit(refund.id);
    expect(audit.at(-1)).toMatchObject({
      from: 'pending_approval',
      to: 'cancelled',
      actor: bob,
      reason: 'cancelled by bob: customer kept the goods',
    });
  });

  it('refuses to cancel a refund that was sent', async () => {
    const setup = await fresh();
    const { refund } = await ask(setup, refundOf(paidTransaction(2_000), 10_000));
    expect(refund.status).toBe(RefundStatus.Pending);
    await expect(setup.service.cancel(refund.id, bob)).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(await setup.store.refundedTotal(refund.transactionId)).toBe(10_000);
  });
});

describe('settling a refund that may have reached the provider (unknown)', () => {
  /** A refund whose answer was lost after the provider took it: `unknown`, holding its share and its cap. */
  async function unknownRefund(setup: Setup, transactionId: string, amount: number) {
    sandbox.injectFault({ path: '/refund', fault: 'timeout-after-commit', times: 1 });
    const { refund } = await ask(setup, refundOf(transactionId, amount));
    expect(refund.status).toBe(RefundStatus.Unknown);
    return refund;
  }
  const capDay = (setup: Setup) => calendarDayIn(defaultEngineConfig.capTimeZone, setup.clock.now());

  it('cancels an unknown refund resolved as not sent once a second person confirms, giving back its share and its cap reservation', async () => {
    const setup = await fresh();
    const tx = paidTransaction(2_000);
    const refund = await unknownRefund(setup, tx, 200_000);
    expect(await setup.store.refundedTotal(tx)).toBe(200_000);
    expect(await setup.payouts.getCapUsage(REFUND_CAP_COUNTER, capDay(setup))).toBe(200_000);
    await expect(setup.service.cancel(refund.id, bob)).rejects.toBeInstanceOf(InvalidTransitionError);

    const proposal = await setup.service.resolve(refund.id, bob, {
      outcome: 'not_sent',
      note: 'no such refund at the provider',
    });
    expect(proposal.applied).toBe(false);
    expect(proposal.refund).toMatchObject({
      status: RefundStatus.Unknown,
      resolutionProposal: { outcome: 'not_sent', proposedBy: bob },
    });
    // Nothing is given back on one person's word.
    expect(await setup.store.refundedTotal(tx)).toBe(200_000);

    const resolved = await setup.service.resolve(refund.id, carol, {
      outcome: 'not_sent',
      note: 'confirmed',
    });
    expect(resolved.applied).toBe(true);
    expect(resolved.refund).toMatchObject({
      status: RefundStatus.Cancelled,
      countsInTotal: false,
      failure: { code: 'RESOLVED_NOT_SENT', message: 'confirmed' },
    });
    expect(resolved.refund.capDay).toBeUndefined();
    expect(resolved.refund.resolutionProposal).toBeUndefined();
    expect(await setup.store.refundedTotal(tx)).toBe(0);
    expect(await setup.payouts.getCapUsage(REFUND_CAP_COUNTER, capDay(setup))).toBe(0);

    const before = refundCalls();
    expect((await ask(setup, refundOf(tx, 200_000))).refund.status).toBe(RefundStatus.Pending);
    expect(refundCalls()).toBe(before + 1);
    const { audit } = await setup.service.getWithAudit(refund.id);
    expect(audit.slice(-2).map((event) => [event.from, event.to, event.actor.id])).toEqual([
      ['unknown', 'unknown', 'bob'],
      ['unknown', 'cancelled', 'carol'],
    ]);
    expect(audit.at(-1)?.reason).toMatch(
      /proposed by bob \(no such refund at the provider\), confirmed by carol \(confirmed\)/,
    );
  });

  it('records an unknown refund resolved as accepted with the provider refund id once a second person confirms, keeping its share and cap', async () => {
    const setup = await fresh();
    const tx = paidTransaction(2_000);
    const refund = await unknownRefund(setup, tx, 150_000);
    const accepted = { outcome: 'accepted', providerRefundId: 'RF-77', note: 'in the dashboard' } as const;
    expect((await setup.service.resolve(refund.id, bob, accepted)).applied).toBe(false);
    const resolved = await setup.service.resolve(refund.id, carol, { ...accepted, note: 'seen it too' });
    expect(resolved.applied).toBe(true);
    expect(resolved.refund).toMatchObject({ status: RefundStatus.Pending, providerRefundId: 'RF-77' });
    expect(resolved.refund.failure).toBeUndefined();
    expect(await setup.store.refundedTotal(tx)).toBe(150_000);
    expect(await setup.payouts.getCapUsage(REFUND_CAP_COUNTER, capDay(setup))).toBe(150_000);
    await expect(setup.service.resolve(refund.id, bob, accepted)).rejects.toBeInstanceOf(
      InvalidTransitionError,
    );
  });

  it("makes a refund the provider accepted findable by the provider's refund id and listed by when it was accepted", async () => {
    const setup = await fresh();
    const { refund } = await ask(setup, refundOf(paidTransaction(2_000), 30_000));
    expect(refund.status).toBe(RefundStatus.Pending);
    const providerRefundId = refund.providerRefundId ?? '';
    const accepted = {
      refundId: refund.id,
      providerRefundId,
      transactionId: refund.transactionId,
      amountKobo: 30_000,
      acceptedAt: refund.updatedAt,
      acceptedBy: 'answer',
    };
    expect(await setup.accepted.get(providerRefundId)).toEqual(accepted);
    const span = (from: number, to: number) => ({
      from: new Date(Date.parse(refund.updatedAt) + from).toISOString(),
      to: new Date(Date.parse(refund.updatedAt) + to).toISOString(),
    });
    expect((await setup.accepted.acceptedBetween(span(0, 0))).items).toEqual([accepted]);
    expect((await setup.accepted.acceptedBetween(span(1, 60_000))).items).toEqual([]);
    expect(await setup.accepted.get('no-such-refund')).toBeUndefined();
  });

  it('makes a refund two people resolved as accepted findable by its provider refund id, but listed on no day', async () => {
    const setup = await fresh();
    const refund = await unknownRefund(setup, paidTransaction(2_000), 40_000);
    expect(await setup.accepted.get('RF-88')).toBeUndefined();
    const accepted = { outcome: 'accepted', providerRefundId: 'RF-88', note: 'in the dashboard' } as const;
    await setup.service.resolve(refund.id, bob, accepted);
    const { refund: resolved } = await setup.service.resolve(refund.id, carol, accepted);
    expect(await setup.accepted.get('RF-88')).toEqual({
      refundId: refund.id,
      providerRefundId: 'RF-88',
      transactionId: refund.transactionId,
      amountKobo: 40_000,
      acceptedAt: resolved.updatedAt,
      acceptedBy: 'resolution',
    });
    const day = { from: '2026-03-01T00:00:00.000Z', to: '2026-03-03T00:00:00.000Z' };
    expect((await setup.accepted.acceptedBetween(day)).items).toEqual([]);
  });

  it('refuses the proposer confirming their own resolution, under any spelling of their identity, and a system', async () => {
    const setup = await fresh();
    const refund = await unknownRefund(setup, paidTransaction(15_000), 100_000);
    const decision = { outcome: 'not_sent', note: 'not there' } as const;
    await setup.service.resolve(refund.id, alice, decision);
    for (const confirmer of [
      alice,
      { id: ' ALICE ', kind: 'user' } as const,
      { id: 'system:x', kind: 'system' } as const,
    ]) {
      await expect(setup.service.resolve(refund.id, confirmer, decision)).rejects.toBeInstanceOf(
        ApprovalForbiddenError,
      );
    }
    expect((await setup.service.get(refund.id)).status).toBe(RefundStatus.Unknown);
    expect(await setup.store.refundedTotal(refund.transactionId)).toBe(100_000);
  });

  it('resolves only an unknown refund, and only with a note', async () => {
    const setup = await fresh();
    const { refund } = await ask(setup, refundOf(paidTransaction(2_000), 10_000));
    expect(refund.status).toBe(RefundStatus.Pending);
    const decision = { outcome: 'not_sent', note: 'x' } as const;
    await expect(setup.service.resolve(refund.id, bob, decision)).rejects.toBeInstanceOf(
      InvalidTransitionError,
    );
    const unknown = await unknownRefund(setup, paidTransaction(15_000), 10_000);
    const blank = setup.service.resolve(unknown.id, bob, { outcome: 'not_sent', note: '  ' });
    await expect(blank).rejects.toBeInstanceOf(ValidationError);
    await expect(blank).rejects.toMatchObject({ issues: [{ path: 'note' }] });
  });
});

/** The request fields of a stored refund, to replay it. */
function pick(refund: {
  transactionId: string;
  amountKobo: number;
  customerNote: string;
  merchantNote: string;
}) {
  return {
    transactionId: refund.transactionId,
    amount: refund.amountKobo,
    customerNote: refund.customerNote,
    merchantNote: refund.merchantNote,
  };
}
