import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../lib/controls/index.js';
import { ProviderPayoutGateway } from '../../lib/payouts/adapters/provider-payout-gateway.js';
import { pausePayouts, resumePayouts } from '../../lib/payouts/engine/controls.js';
import type { PayoutGateway } from '../../lib/payouts/gateway.js';
import { type Payout, PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { PayoutStore } from '../../lib/payouts/store/payout-store.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
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

/** A promise with its resolve function, for holding one step until another has happened. */
function signal() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function otherThan(payouts: readonly Payout[], payout: Payout): Payout {
  const other = payouts.find((candidate) => candidate.id !== payout.id);
  if (!other) throw new Error('no other payout');
  return other;
}

/** The real store, telling the test when a payout has been claimed (moved to `submitting`). */
function claimTracker() {
  const claimed = new Map<string, ReturnType<typeof signal>>();
  const of = (payout: Payout) => {
    let entry = claimed.get(payout.id);
    if (!entry) {
      entry = signal();
      claimed.set(payout.id, entry);
    }
    return entry;
  };
  const store = storeReportingClaims((payout) => of(payout).resolve());
  return { store, of: (payout: Payout) => of(payout).promise };
}

function storeReportingClaims(onClaimed: (payout: Payout) => void): PayoutStore {
  return replaceMethod(h.store, 'transition', async (write) => {
    const after = await h.store.transition(write);
    if (after.status === PayoutStatus.Submitting) onClaimed(after);
    return after;
  });
}

describe('the sweep claims ahead', () => {
  it('claims the next payout while the provider answers the current one', async () => {
    const payouts = [
      (await h.engine.create(command(bankTransfer(110_000), key('ahead-1')))).payout,
      (await h.engine.create(command(bankTransfer(120_000), key('ahead-2')))).payout,
    ];
    const claims = claimTracker();
    const real = new ProviderPayoutGateway(h.client);
    let claimedDuringFirstCall: boolean | undefined;
    // The first call does not answer until the other payout is claimed: that only happens if the worker
    // claims ahead. Without claiming ahead this would wait forever, so the wait is bounded to fail clearly.
    const gateway: PayoutGateway = {
      find: (payout, window) => real.find(payout, window),
      async send(payout) {
        if (claimedDuringFirstCall === undefined) {
          claimedDuringFirstCall = await Promise.race([
            claims.of(otherThan(payouts, payout)).then(() => true),
            new Promise<boolean>((resolve) => setTimeout(resolve, 5_000, false)),
          ]);
        }
        return real.send(payout);
      },
    };

    const report = await payoutSweeper(h.engineWith({ store: claims.store, gateway })).sweep({
      concurrency: 1,
    });

    expect(claimedDuringFirstCall).toBe(true);
    expect(report.submitted).toBe(2);
    for (const payout of payouts) expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('gives a claim back unsent when time runs out before its turn, and the next tick pays it once', async () => {
    const payouts = [
      (await h.engine.create(command(bankTransfer(130_000), key('late-1')))).payout,
      (await h.engine.create(command(bankTransfer(140_000), key('late-2')))).payout,
    ];
    const claims = claimTracker();
    const real = new ProviderPayoutGateway(h.client);
    const options = { concurrency: 1, stopStartingAt: Date.now() + 3_600_000 };
    let sentFirst: Payout | undefined;
    const gateway: PayoutGateway = {
      find: (payout, window) => real.find(payout, window),
      async send(payout) {
        if (!sentFirst) {
          sentFirst = payout;
          // The other payout is claimed ahead while this call is in flight; then the invocation's time runs out.
          await claims.of(otherThan(payouts, payout));
          options.stopStartingAt = Date.now() - 1;
        }
        return real.send(payout);
      },
    };

    const capDay = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
    const capBefore = await h.store.getCapUsage(payouts[0]?.capKey ?? '', capDay);

    const report = await payoutSweeper(h.engineWith({ store: claims.store, gateway })).sweep(options);
    const first = { payout: sentFirst as Payout };
    const second = { payout: otherThan(payouts, first.payout) };

    expect(report).toMatchObject({ submitted: 1, leftOver: true });
    const released = await h.getWithAudit(second.payout.id);
    expect(released.payout.status).toBe(PayoutStatus.Pending);
    expect(released.payout.submissionCount).toBe(0);
    expect(released.payout.attempt).toBeUndefined();
    expect(released.audit.map((event) => [event.from, event.to])).toEqual([
      [null, 'pending'],
      ['pending', 'submitting'],
      ['submitting', 'pending'],
    ]);
    expect(released.audit[2]?.reason).toMatch(/claim released, nothing was sent/);
    expect(ledgerEntriesOf(h.sandbox, second.payout.id)).toHaveLength(0);
    const paidFirst = await h.engine.get(first.payout.id);
    expect(paidFirst?.status).toBe(PayoutStatus.Succeeded);
    // Only the payout that was sent still counts against the daily cap.
    expect(paidFirst?.capDay).toBe(capDay);
    expect(await h.store.getCapUsage(first.payout.capKey, capDay)).toBe(capBefore + first.payout.amountKobo);

    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(second.payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, second.payout.id)).toHaveLength(1);
  });
});

describe('a claim taken ahead and the pause', () => {
  it('sends nothing claimed ahead when the pause lands before its turn, and gives its claim back', async () => {
    const payouts = [
      (await h.engine.create(command(bankTransfer(160_000), key('paused-ahead-1')))).payout,
      (await h.engine.create(command(bankTransfer(170_000), key('paused-ahead-2')))).payout,
    ];
    const claims = claimTracker();
    const real = new ProviderPayoutGateway(h.client);
    let sentFirst: Payout | undefined;
    const gateway: PayoutGateway = {
      find: (payout, window) => real.find(payout, window),
      async send(payout) {
        if (!sentFirst) {
          sentFirst = payout;
          // The other payout is claimed ahead (and its pause read) while this call is in flight; then the
          // operator pauses, before its turn.
          await claims.of(otherThan(payouts, payout));
          await pausePayouts(
            h.engine.ctx,
            systemPrincipal('ops-cli'),
            'landed while a claim waited its turn',
          );
        }
        return real.send(payout);
      },
    };
    try {
      const report = await payoutSweeper(h.engineWith({ store: claims.store, gateway })).sweep({
        concurrency: 1,
      });
      const second = otherThan(payouts, sentFirst as Payout);
      expect(report).toMatchObject({ submitted: 1, skipped: 1 });
      expect(ledgerEntriesOf(h.sandbox, second.id)).toHaveLength(0);
      const released = await h.getWithAudit(second.id);
      expect(released.payout).toMatchObject({ status: PayoutStatus.Pending, submissionCount: 0 });
      expect(released.audit.map((event) => event.to)).toEqual(['pending', 'submitting', 'pending']);
    } finally {
      await resumePayouts(h.engine.ctx, systemPrincipal('ops-cli'));
    }
  });
});

describe('the claim gets the provider side ready', () => {
  it('asks the gateway to get ready while the claim is on its way, and still sends when that fails', async () => {
    const payout = (await h.engine.create(command(bankTransfer(150_000), key('ready-1')))).payout;
    const real = new ProviderPayoutGateway(h.client);
    const steps: string[] = [];
    const store = replaceMethod(h.store, 'transition', async (write) => {
      const claiming = write.after.status === PayoutStatus.Submitting;
      if (claiming) steps.push('claim sent');
      const after = await h.store.transition(write);
      if (claiming) steps.push('claim committed');
      return after;
    });
    const gateway: PayoutGateway = {
      find: (candidate, window) => real.find(candidate, window),
      prepare() {
        steps.push('gateway prepared');
        throw new Error('a head start that failed');
      },
      async send(candidate) {
        steps.push('sent');
        return real.send(candidate);
      },
    };

    const result = await h.engineWith({ store, gateway }).submit(payout.id);

    expect(steps).toEqual(['claim sent', 'gateway prepared', 'claim committed', 'sent']);
    expect(result).toMatchObject({ kind: 'sent', outcome: 'succeeded' });
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });
});
