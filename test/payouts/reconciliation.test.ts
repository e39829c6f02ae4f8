import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderPayoutGateway } from '../../lib/payouts/adapters/provider-payout-gateway.js';
import { resolveReview } from '../../lib/payouts/engine/payout-commands.js';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { PayoutEngine } from '../../lib/payouts/payout-engine.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { PayoutStore } from '../../lib/payouts/store/payout-store.js';
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

  it('lets a person resolve a payout in review, with the reason audited', async () => {
    const id = await submitWithFault('error-500');
    h.sandbox.injectFault({ path: '/transaction/wallet', fault: 'error-503', times: 0 });
    h.clock.advance(h.engine.ctx.config.reconcileGiveUpMs + 1);
    await reconcilePayouts(h.engine.ctx);
    h.sandbox.clearFaults();
    expect((await h.engine.get(id))?.status).toBe(PayoutStatus.NeedsReview);

    const resolved = await resolveReview(
      h.engine.ctx,
      id,
      { id: 'carol', kind: 'user' },
      { outcome: 'failed', note: 'not on the bank statement' },
    );
    expect(resolved.status).toBe(PayoutStatus.Failed);
    const { audit } = await h.getWithAudit(id);
    expect(audit.at(-1)).toMatchObject({ from: 'needs_review', to: 'failed', actor: { id: 'carol' } });
    expect(audit.at(-1)?.reason).toMatch(/not on the bank statement/);
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
