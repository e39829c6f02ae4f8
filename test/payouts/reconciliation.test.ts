import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderPayoutGateway } from '../../lib/payouts/adapters/provider-payout-gateway.js';
import { resolveReview } from '../../lib/payouts/engine/payout-commands.js';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import { type Payout, PayoutStatus } from '../../lib/payouts/model.js';
import { PayoutEngine } from '../../lib/payouts/payout-engine.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { PayoutStore } from '../../lib/payouts/store/payout-store.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import { WorkQueue } from '../../lib/table/index.js';
import {
  alice,
  bankTransfer,
  bob,
  command,
  type EngineHarness,
  ledgerEntriesOf,
  payByTwoAttemptsListedLate,
  payoutMadeAtProvider,
  startEngineHarness,
} from '../support/engine-harness.js';
import { replaceMethod } from '../support/replace-method.js';

let h: EngineHarness;
let keyCounter = 0;
const carol = { id: 'carol', kind: 'user' } as const;
const dave = { id: 'dave', kind: 'user' } as const;

/** A resolution as every one is made: proposed by carol, confirmed by dave with the same decision. */
async function resolveByTwo(id: string, decision: Parameters<typeof resolveReview>[3]) {
  const proposed = await resolveReview(h.engine.ctx, id, carol, decision);
  expect(proposed.resolutionProposal?.proposedBy.id).toBe('carol');
  return resolveReview(h.engine.ctx, id, dave, decision);
}
const key = (label: string) => `${label}-${++keyCounter}`;

beforeAll(async () => {
  h = await startEngineHarness();
});
afterAll(async () => h.close());
beforeEach(() => h.sandbox.reset());

/**
 * A store that dies like a crashed Lambda right after the provider call: it refuses to record any outcome
 * of a payout in `submitting`. No real DynamoDB fault produces "the process vanished here", so the port
 * is wrapped; every other write goes to DynamoDB Local.
 */
function crashingAfterProviderCall(store: PayoutStore): PayoutStore {
  return replaceMethod(store, 'transition', async (write) => {
    if (write.before.status === PayoutStatus.Submitting) throw new Error('simulated crash: process died');
    return store.transition(write);
  });
}

async function submitWithFault(fault: 'timeout-after-commit' | 'reset-before-commit' | 'error-500') {
  const { payout } = await h.engine.create(command(bankTransfer(777_700), key(fault)));
  h.sandbox.injectFault({ path: '/settlement/instant/payout', fault, times: 1 });
  await h.engine.submit(payout.id);
  return payout.id;
}

describe('reconciling payouts whose outcome is unknown', () => {
  it('finds a payout the provider made before the connection dropped, and marks it succeeded', async () => {
    const id = await submitWithFault('timeout-after-commit');
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Unknown);
    expect(ledgerEntriesOf(h.sandbox, id)).toHaveLength(1);

    h.clock.advance(h.engine.ctx.config.reconcileIntervalMs);
    await reconcilePayouts(h.engine.ctx);
    const settled = await h.engine.get(id);
    expect(settled?.status).toBe(PayoutStatus.Succeeded);
    expect(settled?.receipt?.transactionId).toBe(ledgerEntriesOf(h.sandbox, id)[0]?.transactionId);
    const { audit } = await h.getWithAudit(id);
    expect(audit.map((event) => event.to)).toEqual(['pending', 'submitting', 'unknown', 'succeeded']);
    expect(audit.at(-1)?.actor.id).toBe('system:reconciler');
  });

  it('looks again at the end of the grace period, not half the time since the attempt later', async () => {
    const id = await submitWithFault('error-500');
    const attempt = (await h.engine.get(id))?.attempt;
    expect(attempt).toBeDefined();
    const graceMs = h.engine.ctx.config.reconcileGraceMs;
    // A look that comes late in the grace period (a reconciler pass held up): at 90 % of it.
    h.clock.set(new Date(Date.parse(attempt?.startedAt ?? '') + graceMs * 0.9));
    await reconcilePayouts(h.engine.ctx);

    const waiting = await h.engine.get(id);
    expect(waiting?.status).toBe(PayoutStatus.Unknown);
    expect(waiting?.nextActionAt).toBe(
      new Date(Date.parse(attempt?.startedAt ?? '') + graceMs).toISOString(),
    );

    h.clock.set(new Date(Date.parse(waiting?.nextActionAt ?? '')));
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Pending);
    expect(ledgerEntriesOf(h.sandbox, id)).toHaveLength(0);
    h.clock.advance(h.engine.ctx.config.retryBaseMs);
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, id)).toHaveLength(1);
    // Its absent attempt's watch ends, so the passes of the tests after this one see only their own payouts.
    h.clock.advance(h.engine.ctx.config.watchWindowMs + 1);
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(id))?.watchEndedAt).toBeDefined();
  });

  it.each(['reset-before-commit', 'error-500'] as const)(
    'keeps a %s payout unknown during the grace period, then pays it once by a new attempt with a new marker',
    async (fault) => {
      const id = await submitWithFault(fault);
      expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Unknown);

      h.clock.advance(h.engine.ctx.config.reconcileIntervalMs);
      await reconcilePayouts(h.engine.ctx);
      expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Unknown);

      h.clock.advance(h.engine.ctx.config.reconcileGraceMs);
      const report = await reconcilePayouts(h.engine.ctx);
      expect(report.reattempted).toBe(1);
      const pending = await h.engine.get(id);
      expect(pending?.status).toBe(PayoutStatus.Pending);
      expect(pending?.watchedAttempts?.map((a) => a.number)).toEqual([1]);
      // The proved-absent attempt's cap reservation is released; the new claim reserves again.
      expect(pending?.capDay).toBeUndefined();
      expect(h.sandbox.stats().requests['/settlement/instant/payout']).toBe(1);

      // Not before the wait is over, then exactly once, marked as attempt 2.
      await payoutSweeper(h.engine).sweep();
      expect(h.sandbox.stats().requests['/settlement/instant/payout']).toBe(1);
      h.clock.advance(h.engine.ctx.config.retryBaseMs);
      await payoutSweeper(h.engine).sweep();
      const paid = await h.engine.get(id);
      expect(paid?.status).toBe(PayoutStatus.Succeeded);
      const entries = ledgerEntriesOf(h.sandbox, id);
      expect(entries).toHaveLength(1);
      expect(entries[0]?.narration).toMatch(new RegExp(` po_${id}_2$`));
      expect(paid?.receipt?.transactionId).toBe(entries[0]?.transactionId);
      expect(await h.store.getCapUsage(paid?.capKey ?? '', paid?.capDay ?? '')).toBeGreaterThanOrEqual(
        paid?.amountKobo ?? 0,
      );

      // Attempt 1 stays watched after success, and the watch ends quietly when its window is over.
      h.clock.advance(h.engine.ctx.config.watchWindowMs + 1);
      const watch = await reconcilePayouts(h.engine.ctx);
      expect(watch.watched).toBe(1);
      const settled = await h.engine.get(id);
      expect(settled?.status).toBe(PayoutStatus.Succeeded);
      expect(settled?.watchEndedAt).toBeDefined();
    },
  );

  it('fails a payout once its configured number of attempts were all proved absent, and never resends after', async () => {
    const engine = new PayoutEngine({
      store: h.store,
      gateway: new ProviderPayoutGateway(h.client),
      clock: h.clock,
      config: { maxAbsentAttempts: 2 },
    });
    const { payout } = await engine.create(command(bankTransfer(424_200), key('limit')));
    const paths = '/settlement/instant/payout';
    for (let attempt = 1; attempt <= 2; attempt++) {
      h.sandbox.injectFault({ path: paths, fault: 'reset-before-commit', times: 1 });
      h.clock.advance(engine.ctx.config.retryBaseMs * 2);
      await payoutSweeper(engine).sweep();
      expect((await engine.get(payout.id))?.status).toBe(PayoutStatus.Unknown);
      h.clock.advance(engine.ctx.config.reconcileGraceMs + 1);
      await reconcilePayouts(engine.ctx);
    }
    const failed = await engine.get(payout.id);
    expect(failed?.status).toBe(PayoutStatus.Failed);
    expect(failed?.failure?.code).toBe('ABSENT_AT_PROVIDER');
    expect(failed?.watchedAttempts?.map((a) => a.number)).toEqual([1, 2]);
    h.clock.advance(engine.ctx.config.retryBaseMs * 100);
    await payoutSweeper(engine).sweep();
    expect(h.sandbox.stats().requests[paths]).toBe(2);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
  });

  it('fails a definitive refusal at once, without a new attempt', async () => {
    const { payout } = await h.engine.create(
      command(
        bankTransfer(525_200, {
          beneficiary: { bankCode: '999', accountNumber: '0123456789', accountName: 'Nobody' },
        }),
        key('refused'),
      ),
    );
    await h.engine.submit(payout.id);
    const failed = await h.engine.get(payout.id);
    expect(failed?.status).toBe(PayoutStatus.Failed);
    expect(failed?.failure?.code).toBe('PROVIDER_422');
    h.clock.advance(h.engine.ctx.config.reconcileGraceMs * 10);
    await reconcilePayouts(h.engine.ctx);
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Failed);
    expect(h.sandbox.stats().requests['/settlement/instant/payout']).toBe(1);
  });

  it('recovers a payout whose process died between the provider call and the state write', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(313_300), key('crash')));
    const crashing = h.engineWith({ store: crashingAfterProviderCall(h.store) });
    await expect(crashing.submit(payout.id)).rejects.toThrow(/simulated crash/);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Submitting);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);

    // Before the lease runs out nobody touches it: the original worker may still be recording.
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Submitting);

    h.clock.advance(h.engine.ctx.config.submitLeaseMs + 1);
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    expect(h.sandbox.stats().requests['/settlement/instant/payout']).toBe(1);
  });

  it('looks again an interval after a failed look-up at the end of the grace period, then decides', async () => {
    const id = await submitWithFault('error-500');
    const startedAt = Date.parse((await h.engine.get(id))?.attempt?.startedAt ?? '');
    const { reconcileGraceMs, reconcileIntervalMs, retryBaseMs, watchWindowMs } = h.engine.ctx.config;
    h.sandbox.injectFault({ path: '/transaction/wallet', fault: 'error-503', times: 0 });
    h.clock.set(new Date(startedAt + reconcileGraceMs));
    await reconcilePayouts(h.engine.ctx);
    const waiting = await h.engine.get(id);
    expect(waiting?.status).toBe(PayoutStatus.Unknown);
    expect(waiting?.nextActionAt).toBe(
      new Date(startedAt + reconcileGraceMs + reconcileIntervalMs).toISOString(),
    );

    h.sandbox.reset();
    h.clock.set(new Date(startedAt + reconcileGraceMs + reconcileIntervalMs));
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Pending);
    h.clock.advance(retryBaseMs);
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Succeeded);
    // Its absent attempt's watch ends, so the passes of the tests after this one see only their own payouts.
    h.clock.advance(watchWindowMs + 1);
    await reconcilePayouts(h.engine.ctx);
  });

  it('hands a payout to a person when the provider cannot be asked for a day, and alerts', async () => {
    const id = await submitWithFault('error-500');
    h.sandbox.injectFault({ path: '/transaction/wallet', fault: 'error-503', times: 0 });
    h.clock.advance(h.engine.ctx.config.reconcileIntervalMs);
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Unknown);

    h.clock.advance(h.engine.ctx.config.reconcileGiveUpMs);
    const report = await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.NeedsReview);
    expect(report.openNeedsReview).toBeGreaterThanOrEqual(1);
    expect(
      h.logger.entries.some((entry) => entry.level === 'error' && entry.message === 'payout needs review'),
    ).toBe(true);
    h.sandbox.clearFaults();
  });

  it('lets two people resolve a payout in review, with both reasons audited', async () => {
    const id = await submitWithFault('error-500');
    h.sandbox.injectFault({ path: '/transaction/wallet', fault: 'error-503', times: 0 });
    h.clock.advance(h.engine.ctx.config.reconcileGiveUpMs + 1);
    await reconcilePayouts(h.engine.ctx);
    h.sandbox.clearFaults();
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.NeedsReview);

    const decision = { outcome: 'failed', note: 'not on the bank statement' } as const;
    const proposed = await resolveReview(h.engine.ctx, id, carol, decision);
    expect(proposed.status).toBe(PayoutStatus.NeedsReview);
    const resolved = await resolveReview(h.engine.ctx, id, dave, decision);
    expect(resolved.status).toBe(PayoutStatus.Failed);
    const { audit } = await h.getWithAudit(id);
    expect(audit.at(-1)).toMatchObject({ from: 'needs_review', to: 'failed', actor: { id: 'dave' } });
    expect(audit.at(-1)?.reason).toMatch(
      /proposed by carol \(not on the bank statement\), confirmed by dave/,
    );
  });
});

/** The wallet listings fail for `reconcileGiveUpMs`, so the reconciler hands the payout to a person undecided. */
async function reviewAfterADayOfFailedLookups(id: string): Promise<void> {
  h.sandbox.injectFault({ path: '/transaction/wallet', fault: 'error-503', times: 0 });
  h.clock.advance(h.engine.ctx.config.reconcileGiveUpMs + 1);
  await reconcilePayouts(h.engine.ctx);
  h.sandbox.clearFaults();
  expect((await h.engine.get(id))?.status).toBe(PayoutStatus.NeedsReview);
}

/** Whether the reconciler's watch will look at the payout again (it sits in the watch work queue). */
async function inWatchQueue(payout: Payout): Promise<boolean> {
  const farFuture = new Date(h.clock.now().getTime() + 365 * 86_400_000).toISOString();
  const due = await h.store.due(WorkQueue.Watch, farFuture, 1000);
  return due.some((one) => one.id === payout.id);
}

const today = () => calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());

/** A bank payout made straight at the provider with a chosen narration (a person on its dashboard). */
function providerPayout(amountNaira: number, narration: string): Promise<string> {
  return payoutMadeAtProvider(h.sandbox, { amountNaira, narration });
}

describe('a payout a person resolves while its attempt in flight was never found nor proved absent', () => {
  it('keeps watching that attempt after it is resolved as paid by an earlier attempt, and reports the double', async () => {
    // Attempt 1 pays, but lists only after the grace period: it is proved absent and attempt 2 is sent.
    const { payout } = await h.engine.create(command(bankTransfer(404_000), key('resolved-earlier')));
    const day = today();
    const capBefore = await h.store.getCapUsage(payout.capKey, day);
    // Attempt 2 pays too, its answer lost; then the provider cannot be asked for a day.
    await payByTwoAttemptsListedLate(h, h.engine, payout);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Unknown);
    await reviewAfterADayOfFailedLookups(payout.id);

    const first = ledgerEntriesOf(h.sandbox, payout.id).find((e) => e.narration.endsWith(`po_${payout.id}`));
    const resolved = await resolveByTwo(payout.id, {
      outcome: 'succeeded',
      transactionId: first?.transactionId ?? '',
      note: 'attempt 1 is on the bank statement',
    });
    expect(resolved.status).toBe(PayoutStatus.Succeeded);
    expect(resolved.paidByAttempt).toBe(1);
    expect(resolved.watchedAttempts?.map((a) => a.number)).toEqual([2]);
    expect(await inWatchQueue(resolved)).toBe(true);

    await reconcilePayouts(h.engine.ctx);
    const { payout: reviewed, audit } = await h.getWithAudit(payout.id);
    const entries = ledgerEntriesOf(h.sandbox, payout.id);
    expect(entries).toHaveLength(2);
    expect(reviewed.status).toBe(PayoutStatus.NeedsReview);
    expect(reviewed.paidTwice?.attempts).toEqual([1, 2]);
    expect([...(reviewed.paidTwice?.transactionIds ?? [])].sort()).toEqual(
      entries.map((e) => e.transactionId).sort(),
    );
    expect(audit.at(-1)?.reason).toMatch(/^paid twice: attempts 1 and 2/);
    // Both payments left the wallet, and the day's cap counts both.
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + 2 * 404_000);

    // Closed as recovered (attempt 2 refunded by the bank): the double is known, so nothing reports it a second
    // time, while attempt 2 stays watched to the end of its window.
    const settled = await resolveByTwo(payout.id, {
      outcome: 'paid_twice_recovered',
      recoveryReference: 'REFUND-0042',
      note: 'attempt 2 refunded by the bank',
    });
    expect(settled.status).toBe(PayoutStatus.Succeeded);
    expect(settled.receipt?.transactionId).toBe(first?.transactionId);
    expect(settled.watchedAttempts?.map((a) => a.number)).toEqual([2]);
    expect(await inWatchQueue(settled)).toBe(true);
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + 2 * 404_000);
  });

  it('keeps watching that attempt after it is resolved as failed, and reopens the payout when it shows up paid', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(515_000), key('resolved-failed')));
    const day = today();
    const capBefore = await h.store.getCapUsage(payout.capKey, day);
    // The payment is made but listed later than the day of failed look-ups: both people see no record of it.
    h.sandbox.setListingLag(h.engine.ctx.config.reconcileGiveUpMs + 60 * 60_000);
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    await h.engine.submit(payout.id);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    await reviewAfterADayOfFailedLookups(payout.id);

    const resolved = await resolveByTwo(payout.id, {
      outcome: 'failed',
      note: 'not on the bank statement yet',
    });
    expect(resolved.status).toBe(PayoutStatus.Failed);
    expect(resolved.watchedAttempts?.map((a) => a.number)).toEqual([1]);
    expect(await inWatchQueue(resolved)).toBe(true);
    expect(resolved.watchedAttempts?.[0]?.capDay).toBe(day);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore);

    h.sandbox.setListingLag(0);
    await reconcilePayouts(h.engine.ctx);
    const { payout: reviewed, audit } = await h.getWithAudit(payout.id);
    expect(reviewed.status).toBe(PayoutStatus.NeedsReview);
    expect(audit.at(-1)?.reason).toMatch(/recorded as failed, but a record of an earlier attempt showed up/);
    expect(audit.at(-1)?.reason).toContain(ledgerEntriesOf(h.sandbox, payout.id)[0]?.transactionId ?? 'none');
    // The money did leave: the cap counts it again on the day the attempt had reserved.
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + 515_000);

    // Not paid on one look now: the record is there. Two people override it (the bank returned it): no reservation
    // is given back, and the attempt stays watched, its record remembered, so it does not reopen the payout again.
    await expect(
      resolveReview(h.engine.ctx, payout.id, carol, { outcome: 'failed', note: 'the bank returned it' }),
    ).rejects.toThrow(/attempt 1 has a SUCCESS record/);
    const again = await resolveByTwo(payout.id, {
      outcome: 'failed',
      note: 'the bank returned it',
      force: true,
    });
    expect(again.status).toBe(PayoutStatus.Failed);
    expect(again.watchedAttempts?.map((a) => a.number)).toEqual([1]);
    expect(await inWatchQueue(again)).toBe(true);
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Failed);
    expect(await h.store.getCapUsage(payout.capKey, day)).toBe(capBefore + 515_000);
  });

  it('adds no watch when the resolution names the attempt in flight as the one that paid', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(626_000), key('resolved-current')));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    await h.engine.submit(payout.id);
    await reviewAfterADayOfFailedLookups(payout.id);

    const [entry] = ledgerEntriesOf(h.sandbox, payout.id);
    const resolved = await resolveByTwo(payout.id, {
      outcome: 'succeeded',
      transactionId: entry?.transactionId ?? '',
      note: 'the one record is ours',
    });
    expect(resolved.status).toBe(PayoutStatus.Succeeded);
    expect(resolved.watchedAttempts ?? []).toEqual([]);
    expect(resolved.paidByAttempt).toBeUndefined();
    expect(await inWatchQueue(resolved)).toBe(false);
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
  });

  it('adds no watch when a forced resolution names a record carrying the marker of the attempt in flight', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(737_000), key('forced-current')));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    await h.engine.submit(payout.id);
    await reviewAfterADayOfFailedLookups(payout.id);
    // A record with the payout's marker but another amount: verification fails, so two people force it.
    const forced = {
      outcome: 'succeeded' as const,
      transactionId: await providerPayout(1, `refund po_${payout.id}`),
      force: true,
    };
    const proposed = await resolveReview(h.engine.ctx, payout.id, alice, {
      ...forced,
      note: 'on the statement',
    });
    expect(proposed.status).toBe(PayoutStatus.NeedsReview);
    const resolved = await resolveReview(h.engine.ctx, payout.id, bob, {
      ...forced,
      note: 'checked with alice',
    });
    expect(resolved.status).toBe(PayoutStatus.Succeeded);
    expect(resolved.watchedAttempts ?? []).toEqual([]);
    expect(await inWatchQueue(resolved)).toBe(false);
    // Were attempt 1 watched, the two records carrying its marker would reopen the payout at every pass.
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
  });
});

describe('reconciliation under a deadline', () => {
  it('starts no look-up once its time is up, leaving the payout for the next pass', async () => {
    const id = await submitWithFault('timeout-after-commit');
    h.clock.advance(h.engine.ctx.config.reconcileIntervalMs);
    const report = await reconcilePayouts(h.engine.ctx, { stopStartingAt: Date.now() - 1 });
    expect(report.succeeded).toBe(0);
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Unknown);
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Succeeded);
  });

  it('abandons a look-up that outlasts its deadline, leaving the payout unknown, and the next pass decides it', async () => {
    const id = await submitWithFault('timeout-after-commit');
    h.clock.advance(h.engine.ctx.config.reconcileIntervalMs);
    // The provider's listing answers after 2 s; the look-up's deadline is 100 ms (in Lambda LOOKUP_DEADLINE_MS).
    h.sandbox.injectFault({ path: '/transaction/wallet', method: 'GET', fault: 'latency', latencyMs: 2_000 });
    const started = Date.now();
    const cut = await reconcilePayouts(h.engine.ctx, { lookupDeadlineMs: 100 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(cut).toMatchObject({ succeeded: 0, stillUnknown: 1 });
    const after = await h.engine.get(id);
    expect(after?.status).toBe(PayoutStatus.Unknown);
    const { audit } = await h.getWithAudit(id);
    expect(JSON.stringify(audit)).not.toContain('proved absent');
    // Nothing is lost: the next pass, once the payout is due for a look again, finds the record.
    h.clock.advance(h.engine.ctx.config.reconcileIntervalMs);
    await reconcilePayouts(h.engine.ctx);
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, id)).toHaveLength(1);
  });
});

describe('a sweep whose outcome writes fail', () => {
  it('reports the failure after every send, and the reconciler later settles each payout from the provider', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await h.engine.create(command(bankTransfer(20_000 + i), key('sweep-crash')))).payout.id);
    const crashing = h.engineWith({ store: crashingAfterProviderCall(h.store) });
    await expect(payoutSweeper(crashing).sweep({ concurrency: 2 })).rejects.toThrow(/simulated crash/);
    for (const id of ids) {
      expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Submitting);
      expect(ledgerEntriesOf(h.sandbox, id)).toHaveLength(1);
    }
    h.clock.advance(h.engine.ctx.config.submitLeaseMs + 1);
    await reconcilePayouts(h.engine.ctx);
    for (const id of ids) expect((await h.engine.get(id))?.status).toBe(PayoutStatus.Succeeded);
  });
});
