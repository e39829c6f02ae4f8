import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { type DomainEvent, isPayoutEvent } from '../../lib/events/domain-events.js';
import { InProcessEventBus } from '../../lib/events/event-publisher.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { StreamRelay } from '../../lib/local/stream-relay.js';
import { ProviderPayoutGateway } from '../../lib/payouts/adapters/provider-payout-gateway.js';
import type { MetricsSink } from '../../lib/payouts/engine/context.js';
import { resolveReview } from '../../lib/payouts/engine/payout-commands.js';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { PayoutEngine } from '../../lib/payouts/payout-engine.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { ulid } from '../../lib/shared/ids.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import {
  bankTransfer,
  command,
  type EngineHarness,
  ledgerEntriesOf,
  payByTwoAttemptsListedLate,
  payoutMadeAtProvider,
  startEngineHarness,
} from '../support/engine-harness.js';

let h: EngineHarness;
let engine: PayoutEngine;
let dynamoDb: DynamoDBClient;
const counted: string[] = [];
const metrics: MetricsSink = { count: (name) => counted.push(name), timing() {} };
let keyCounter = 0;
const key = (label: string) => `${label}-${++keyCounter}`;

beforeAll(async () => {
  h = await startEngineHarness();
  engine = new PayoutEngine({
    store: h.store,
    gateway: new ProviderPayoutGateway(h.client),
    clock: h.clock,
    logger: h.logger,
    metrics,
  });
  dynamoDb = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
});
afterAll(async () => {
  dynamoDb.destroy();
  await h.close();
});
beforeEach(() => {
  h.sandbox.reset();
  counted.length = 0;
});

const VICTIM_ACCOUNT = { bankCode: '058', accountNumber: '1111111111', accountName: 'Victim Payee' };
const carol = { id: 'carol', kind: 'user' } as const;
const dave = { id: 'dave', kind: 'user' } as const;

/** A resolution as every one is made: proposed by carol, confirmed by dave with the same decision. */
async function resolveByTwo(id: string, decision: Parameters<typeof resolveReview>[3]) {
  const proposed = await resolveReview(engine.ctx, id, carol, decision);
  expect(proposed.resolutionProposal?.proposedBy.id).toBe('carol');
  return resolveReview(engine.ctx, id, dave, decision);
}
/** 500,000.00 naira. */
const HALF_A_MILLION = 50_000_000;

/** A payout of 500,000.00 to 1111111111 whose one request got a 500 before the provider acted: unknown. */
async function unknownPayoutA(): Promise<string> {
  const { payout } = await engine.create(
    command(bankTransfer(HALF_A_MILLION, { beneficiary: VICTIM_ACCOUNT }), key('victim')),
  );
  h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-500', times: 1 });
  await engine.submit(payout.id);
  expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Unknown);
  return payout.id;
}

/**
 * A bank payout made at the provider with a chosen narration, as another payout's request (or a person using the
 * provider's own dashboard) would make it. Sent straight to the sandbox: whether our API refuses the marker in a
 * client narration is the input side's business; the matcher must hold without it.
 */
function providerPayout(amountNaira: number, accountNumber: string, narration: string): Promise<string> {
  return payoutMadeAtProvider(h.sandbox, {
    amountNaira,
    accountNumber,
    accountName: 'Someone Else',
    narration,
  });
}

describe('exact matching of provider records', () => {
  it('does not take a 1 NGN payout whose narration carries po_<A> for the 500,000 NGN payout A (spoofing)', async () => {
    const a = await unknownPayoutA();
    // Payout B's request as the engine sends it: the client's narration, then B's own marker last.
    const spoofId = await providerPayout(1, '2222222222', `thanks po_${a} po_${ulid(h.clock.now())}`);

    h.clock.advance(engine.ctx.config.reconcileIntervalMs);
    await reconcilePayouts(engine.ctx);
    const looked = await engine.get(a);
    expect(looked?.status).toBe(PayoutStatus.Unknown);
    expect(looked?.receipt).toBeUndefined();

    // A was never paid: once the grace period proves it, A is paid by a new attempt, to its own payee.
    h.clock.advance(engine.ctx.config.reconcileGraceMs);
    await reconcilePayouts(engine.ctx);
    expect((await engine.get(a))?.status).toBe(PayoutStatus.Pending);
    h.clock.advance(engine.ctx.config.retryBaseMs);
    await payoutSweeper(engine).sweep();
    const paid = await engine.get(a);
    expect(paid?.status).toBe(PayoutStatus.Succeeded);
    expect(paid?.receipt?.transactionId).not.toBe(spoofId);
    const ours = h.sandbox.ledger().operations.filter((op) => op.narration.endsWith(`po_${a}_2`));
    expect(ours.map((op) => [op.amount, op.transactionId])).toEqual([
      [500_000, paid?.receipt?.transactionId],
    ]);
  });

  it.each([
    ['another amount', 1, VICTIM_ACCOUNT.accountNumber, /amount 100 kobo, not 50000000/],
    ['another account', 500_000, '2222222222', /destination 058\/2222222222, not 058\/1111111111/],
  ])(
    'hands payout A to a person, naming the record, when a foreign record ends with its marker but has %s',
    async (_label, amountNaira, accountNumber, mismatch) => {
      const a = await unknownPayoutA();
      const foreignId = await providerPayout(amountNaira, accountNumber, `manual po_${a}`);

      h.clock.advance(engine.ctx.config.reconcileIntervalMs);
      const report = await reconcilePayouts(engine.ctx);
      expect(report.needsReview).toBe(1);
      const reviewed = await h.getWithAudit(a);
      expect(reviewed.payout.status).toBe(PayoutStatus.NeedsReview);
      expect(reviewed.payout.receipt).toBeUndefined();
      const reason = reviewed.audit.at(-1)?.reason ?? '';
      const foreign = h.sandbox.ledger().operations.find((op) => op.transactionId === foreignId);
      expect(reason).toContain(foreignId);
      expect(reason).toContain(`to 058/${accountNumber}`);
      expect(reason).toContain(`at ${foreign?.createdAt}`);
      expect(reason).toMatch(mismatch);
      // Nothing was resent: a person decides.
      expect(h.sandbox.stats().requests['/settlement/instant/payout']).toBe(2);
    },
  );

  it('hands a foreign record ending with the marker of a payout resolved as failed to a person once, not at every pass, and shows a change in its records again', async () => {
    const a = await unknownPayoutA();
    await providerPayout(1, VICTIM_ACCOUNT.accountNumber, `manual po_${a}`);
    h.clock.advance(engine.ctx.config.reconcileIntervalMs);
    await reconcilePayouts(engine.ctx);
    // A record carries A's marker, so "not paid" needs both people to override it.
    const note = {
      outcome: 'failed' as const,
      note: 'the 1 NGN debit is not ours; A was never paid',
      force: true,
    };
    const resolved = await resolveByTwo(a, note);
    expect(resolved.status).toBe(PayoutStatus.Failed);
    // Attempt 1 was never found nor proved absent: it is watched, remembering the record both people were shown
    // (a record not final could still turn paid), so the same record does not reopen the payout.
    expect(resolved.watchedAttempts).toEqual([
      expect.objectContaining({ number: 1, shownRecords: expect.any(String) }),
    ]);
    await reconcilePayouts(engine.ctx);
    h.clock.advance(engine.ctx.config.reconcileIntervalMs);
    await reconcilePayouts(engine.ctx);
    expect((await engine.get(a))?.status).toBe(PayoutStatus.Failed);

    // A second record carrying the marker: the records changed, and a person sees them again.
    await providerPayout(2, VICTIM_ACCOUNT.accountNumber, `another manual po_${a}`);
    h.clock.advance(engine.ctx.config.reconcileIntervalMs);
    await reconcilePayouts(engine.ctx);
    expect((await engine.get(a))?.status).toBe(PayoutStatus.NeedsReview);
  });

  it('ignores a record of its own earlier attempt when looking for a later one, and the other way round', async () => {
    const { payout } = await engine.create(command(bankTransfer(303_000), key('own-attempts')));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'reset-before-commit', times: 1 });
    await engine.submit(payout.id);
    h.clock.advance(engine.ctx.config.reconcileGraceMs + 1);
    await reconcilePayouts(engine.ctx);
    h.clock.advance(engine.ctx.config.retryBaseMs);
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    await payoutSweeper(engine).sweep();
    expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Unknown);

    h.clock.advance(engine.ctx.config.reconcileIntervalMs);
    await reconcilePayouts(engine.ctx);
    const settled = await engine.get(payout.id);
    expect(settled?.status).toBe(PayoutStatus.Succeeded);
    const [entry] = ledgerEntriesOf(h.sandbox, payout.id);
    expect(entry?.narration).toMatch(new RegExp(`po_${payout.id}_2$`));
    expect(settled?.receipt?.transactionId).toBe(entry?.transactionId);
    expect(settled?.paidByAttempt).toBeUndefined();
  });
});

describe('markers of attempts', () => {
  it('sends a payout the provider could not take (429) again under the same marker: nothing reached it', async () => {
    const { payout } = await engine.create(command(bankTransfer(202_000), key('not-sent')));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 1 });
    await engine.submit(payout.id);
    expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Pending);
    h.clock.advance(engine.ctx.config.retryBaseMs * 4);
    await payoutSweeper(engine).sweep();
    const paid = await engine.get(payout.id);
    expect(paid?.status).toBe(PayoutStatus.Succeeded);
    expect(paid?.attempt?.number).toBe(2);
    expect(ledgerEntriesOf(h.sandbox, payout.id).map((e) => e.narration)).toEqual([
      `supplier invoice po_${payout.id}`,
    ]);
  });
});

describe('an earlier attempt that shows up late', () => {
  it('is detected as paid twice after the re-attempt succeeded: needs_review, metric, error log and a Payout Paid Twice event', async () => {
    const bus = new InProcessEventBus();
    const received: DomainEvent[] = [];
    bus.subscribe((event) => {
      if (isPayoutEvent(event)) received.push(event);
    });
    const relay = await StreamRelay.forTable(
      dynamoDb,
      inject('dynamoDbEndpoint'),
      h.tableName,
      bus,
      h.logger,
    );
    // The provider lists records only long after it made them: longer than the grace period.
    const lag = engine.ctx.config.reconcileGraceMs + 30 * 60_000;
    h.sandbox.setListingLag(lag);

    const { payout } = await engine.create(command(bankTransfer(404_000), key('late')));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    await engine.submit(payout.id);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);

    h.clock.advance(engine.ctx.config.reconcileGraceMs + 1);
    await reconcilePayouts(engine.ctx);
    expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Pending);
    h.clock.advance(engine.ctx.config.retryBaseMs);
    await payoutSweeper(engine).sweep();
    expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    await reconcilePayouts(engine.ctx);
    expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);

    h.clock.advance(lag);
    const report = await reconcilePayouts(engine.ctx);
    expect(report.paidTwice).toBe(1);
    const { payout: reviewed, audit } = await h.getWithAudit(payout.id);
    expect(reviewed.status).toBe(PayoutStatus.NeedsReview);
    const entries = ledgerEntriesOf(h.sandbox, payout.id);
    expect(entries).toHaveLength(2);
    expect(reviewed.paidTwice?.attempts).toEqual([1, 2]);
    expect([...(reviewed.paidTwice?.transactionIds ?? [])].sort()).toEqual(
      entries.map((e) => e.transactionId).sort(),
    );
    const reason = audit.at(-1)?.reason ?? '';
    expect(reason).toMatch(/^paid twice: attempts 1 and 2/);
    for (const entry of entries) expect(reason).toContain(entry.transactionId);
    expect(counted).toContain('PayoutPaidTwice');
    expect(h.logger.entries.some((e) => e.level === 'error' && e.message === 'payout paid twice')).toBe(true);

    for (let poll = 0; poll < 3; poll++) await relay.pollOnce();
    await relay.stop();
    const events = received.filter((event) => event.detail.payoutId === payout.id);
    expect(events.map((event) => event.detailType)).toEqual(['Payout Succeeded', 'Payout Paid Twice']);
    expect(events[1]?.detail.paidTwice?.attempts).toEqual([1, 2]);
  });

  it('hands a succeeded payout to a person when its earlier attempt could never be checked before the watch ended', async () => {
    const { payout } = await engine.create(command(bankTransfer(606_000), key('unwatchable')));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'reset-before-commit', times: 1 });
    await engine.submit(payout.id);
    h.clock.advance(engine.ctx.config.reconcileGraceMs + 1);
    await reconcilePayouts(engine.ctx);
    h.clock.advance(engine.ctx.config.retryBaseMs);
    await payoutSweeper(engine).sweep();
    expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);

    h.sandbox.injectFault({ path: '/transaction/wallet', fault: 'error-503', times: 0 });
    h.clock.advance(engine.ctx.config.watchWindowMs + 1);
    await reconcilePayouts(engine.ctx);
    expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    h.clock.advance(engine.ctx.config.reconcileGiveUpMs);
    await reconcilePayouts(engine.ctx);
    h.sandbox.clearFaults();
    const { payout: reviewed, audit } = await h.getWithAudit(payout.id);
    expect(reviewed.status).toBe(PayoutStatus.NeedsReview);
    expect(audit.at(-1)?.reason).toMatch(/whether attempts 1 ever paid could not be checked/);
  });

  it('reopens a payout that failed after its attempts were proved absent when one of them is paid after all', async () => {
    const strict = new PayoutEngine({
      store: h.store,
      gateway: new ProviderPayoutGateway(h.client),
      clock: h.clock,
      logger: h.logger,
      config: { maxAbsentAttempts: 1 },
    });
    const lag = strict.ctx.config.reconcileGraceMs + 30 * 60_000;
    h.sandbox.setListingLag(lag);
    const { payout } = await strict.create(command(bankTransfer(505_000), key('late-after-failed')));
    const capBefore = await h.store.getCapUsage(
      payout.capKey,
      calendarDayIn(strict.ctx.config.capTimeZone, h.clock.now()),
    );
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-500-after-commit', times: 1 });
    await strict.submit(payout.id);
    h.clock.advance(strict.ctx.config.reconcileGraceMs + 1);
    await reconcilePayouts(strict.ctx);
    const failed = await strict.get(payout.id);
    expect(failed?.status).toBe(PayoutStatus.Failed);
    const day = failed?.watchedAttempts?.[0]?.capDay ?? '';
    expect(day).not.toBe('');
    // The reservation was given back when the attempt was proved absent...
    const usageWhenFailed = await h.store.getCapUsage(payout.capKey, day);
    expect(usageWhenFailed).toBe(capBefore);

    h.clock.advance(lag);
    await reconcilePayouts(strict.ctx);
    const { payout: reviewed, audit } = await h.getWithAudit(payout.id);
    expect(reviewed.status).toBe(PayoutStatus.NeedsReview);
    expect(audit.at(-1)?.reason).toMatch(/recorded as failed, but a record of an earlier attempt showed up/);
    expect(audit.at(-1)?.reason).toContain(ledgerEntriesOf(h.sandbox, payout.id)[0]?.transactionId ?? 'none');
    // ...and the money did leave the wallet after all: the day's cap counts it again.
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + 505_000);
  });

  /** The money that left the wallets for a payout, in kobo, by the sandbox's own ledger. */
  const moneyLeft = (payoutId: string) =>
    ledgerEntriesOf(h.sandbox, payoutId).reduce((sum, entry) => sum + Math.round(entry.amount * 100), 0);

  it('counts both payments on the cap when a payout paid by its earlier attempt finds its later one listed late', async () => {
    const { payout } = await engine.create(command(bankTransfer(404_000), key('late-current')));
    const day = calendarDayIn(engine.ctx.config.capTimeZone, h.clock.now());
    const capBefore = await h.store.getCapUsage(payout.capKey, day);
    // Attempt 1 pays, lists late, is proved absent; attempt 2 pays too, its answer lost.
    const lag = await payByTwoAttemptsListedLate(h, engine, payout);
    expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Unknown);
    // Attempt 1 lists now; attempt 2 not yet, and its grace period is over: paid once, by attempt 1.
    h.clock.advance(lag - engine.ctx.config.reconcileGraceMs - 1 - engine.ctx.config.retryBaseMs);
    await reconcilePayouts(engine.ctx);
    const paid = await engine.get(payout.id);
    expect(paid?.status).toBe(PayoutStatus.Succeeded);
    expect(paid?.paidByAttempt).toBe(1);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + 404_000);

    h.clock.advance(lag);
    await reconcilePayouts(engine.ctx);
    const reviewed = await engine.get(payout.id);
    expect(reviewed?.paidTwice?.attempts).toEqual([1, 2]);
    expect(moneyLeft(payout.id)).toBe(808_000);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + moneyLeft(payout.id));

    // Resolved with attempt 2's record: the payout no longer says attempt 1 paid it.
    const second = ledgerEntriesOf(h.sandbox, payout.id).find((e) =>
      e.narration.endsWith(`po_${payout.id}_2`),
    );
    const resolved = await resolveByTwo(payout.id, {
      outcome: 'paid_twice_recovered',
      transactionId: second?.transactionId ?? '',
      recoveryReference: 'RECALL-1',
      note: 'attempt 1 is being recovered',
    });
    expect(resolved.receipt?.transactionId).toBe(second?.transactionId);
    expect(resolved.paidByAttempt).toBeUndefined();
    // Attempt 2 stays watched to the end of its window, its record remembered: seeing it again is no news.
    expect(resolved.watchedAttempts).toEqual([
      expect.objectContaining({ number: 2, shownRecords: `${second?.transactionId}=SUCCESS` }),
    ]);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + moneyLeft(payout.id));
  });

  it('reports a double the reconciler finds while the payout is unknown once: its resolution keeps watching without reporting it again', async () => {
    const { payout } = await engine.create(command(bankTransfer(212_000), key('double-while-unknown')));
    const day = calendarDayIn(engine.ctx.config.capTimeZone, h.clock.now());
    const capBefore = await h.store.getCapUsage(payout.capKey, day);
    const lag = await payByTwoAttemptsListedLate(h, engine, payout);
    // Both attempts list at once: paid twice, found while attempt 2 is still unknown.
    h.clock.advance(lag);
    await reconcilePayouts(engine.ctx);
    const reviewed = await engine.get(payout.id);
    expect(reviewed?.paidTwice?.attempts).toEqual([1, 2]);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + moneyLeft(payout.id));

    const first = ledgerEntriesOf(h.sandbox, payout.id).find((e) => e.narration.endsWith(`po_${payout.id}`));
    const resolved = await resolveByTwo(payout.id, {
      outcome: 'paid_twice_recovered',
      recoveryReference: 'RECALL-2',
      note: 'attempt 2 is being recovered',
    });
    // The earliest attempt's record is kept as the receipt; attempt 1 stays watched, its record remembered.
    expect(resolved.receipt?.transactionId).toBe(first?.transactionId);
    expect(resolved.watchedAttempts).toEqual([
      expect.objectContaining({ number: 1, shownRecords: `${first?.transactionId}=SUCCESS` }),
    ]);
    await reconcilePayouts(engine.ctx);
    expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(counted.filter((name) => name === 'PayoutPaidTwice')).toHaveLength(1);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + moneyLeft(payout.id));
  });

  it('counts both payments on the cap when a payout failed as absent finds both its attempts listed late', async () => {
    const strict = new PayoutEngine({
      store: h.store,
      gateway: new ProviderPayoutGateway(h.client),
      clock: h.clock,
      logger: h.logger,
      config: { maxAbsentAttempts: 2 },
    });
    const lag = strict.ctx.config.reconcileGraceMs + 30 * 60_000;
    h.sandbox.setListingLag(lag);
    const { payout } = await strict.create(command(bankTransfer(303_000), key('late-both-failed')));
    const day = calendarDayIn(strict.ctx.config.capTimeZone, h.clock.now());
    const capBefore = await h.store.getCapUsage(payout.capKey, day);
    // Both attempts pay, their answers lost, and each lists only after it was proved absent.
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-500-after-commit', times: 1 });
    await strict.submit(payout.id);
    h.clock.advance(strict.ctx.config.reconcileGraceMs + 1);
    await reconcilePayouts(strict.ctx);
    expect((await strict.get(payout.id))?.status).toBe(PayoutStatus.Pending);
    h.clock.advance(strict.ctx.config.retryBaseMs);
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-500-after-commit', times: 1 });
    await payoutSweeper(strict).sweep();
    expect((await strict.get(payout.id))?.status).toBe(PayoutStatus.Unknown);
    h.clock.advance(strict.ctx.config.reconcileGraceMs + 1);
    await reconcilePayouts(strict.ctx);
    const failed = await strict.get(payout.id);
    expect(failed?.status).toBe(PayoutStatus.Failed);
    expect(failed?.watchedAttempts?.map((a) => [a.number, a.capDay])).toEqual([
      [1, day],
      [2, day],
    ]);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore);

    h.clock.advance(lag);
    await reconcilePayouts(strict.ctx);
    const reviewed = await strict.get(payout.id);
    expect(reviewed?.status).toBe(PayoutStatus.NeedsReview);
    expect(reviewed?.paidTwice?.attempts).toEqual([1, 2]);
    expect(moneyLeft(payout.id)).toBe(606_000);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + moneyLeft(payout.id));
  });
});
