import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toKobo } from '../../lib/money.js';
import { ProviderPayoutGateway } from '../../lib/payouts/adapters/provider-payout-gateway.js';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import { type Payout, PayoutStatus, TERMINAL_STATUSES } from '../../lib/payouts/model.js';
import type { PayoutEngine } from '../../lib/payouts/payout-engine.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { CreatePayoutRequest } from '../../lib/payouts/schemas.js';
import type { PayoutStore } from '../../lib/payouts/store/payout-store.js';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import type { FaultKind } from '../../lib/sandbox/index.js';
import {
  command,
  type EngineHarness,
  HARNESS_PIN,
  HARNESS_TOKEN,
  startEngineHarness,
} from '../support/engine-harness.js';
import { replaceMethod } from '../support/replace-method.js';

/**
 * Hundreds of payouts through the real engine, DynamoDB Local and the sandbox, while the sandbox injects
 * every fault kind, requests are delivered twice or three times (some concurrently), and some workers die
 * between the provider call and the state write. Afterwards the sandbox's own ledger is the judge. Time passes
 * on the injected clock (leases, grace periods, waits before a new attempt, the watch window), never by sleeping.
 */

const PAYOUTS = 300;
const WAVE = 20;
const MONEY_PATHS = [
  '/settlement/instant/payout',
  '/wallet/transfer',
  '/child/debit',
  '/child/bank',
] as const;
const FAULTS: FaultKind[] = [
  'error-500',
  'error-503',
  'error-429',
  'reset-before-commit',
  'timeout-after-commit',
  'error-500-after-commit',
  'latency',
];
const CLIENT_TIMEOUT_MS = 250;

let h: EngineHarness;
let impatient: ProviderClient;

beforeAll(async () => {
  h = await startEngineHarness({ approvalThresholdKobo: Number.MAX_SAFE_INTEGER, maxSubmissionAttempts: 50 });
  impatient = new ProviderClient({
    baseUrl: h.sandbox.url,
    credentials: new StaticCredentialsSource({ token: h.sandbox.token, pin: h.sandbox.pin }),
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
    timeouts: { requestMs: CLIENT_TIMEOUT_MS },
  });
});
afterAll(async () => {
  await impatient.close();
  await h.close();
});

/** Dies like a crashed Lambda after the provider call: see reconciliation.test.ts for why the port is wrapped. */
function crashing(store: PayoutStore): PayoutStore {
  return replaceMethod(store, 'transition', async (write) => {
    if (write.before.status === PayoutStatus.Submitting) throw new Error('simulated crash');
    return store.transition(write);
  });
}

interface Plan {
  request: CreatePayoutRequest;
  deliveries: number;
  concurrent: boolean;
  crash: boolean;
  fault: FaultKind | 'none';
}

function planFor(h: EngineHarness, seed: number): Plan[] {
  const f = h.fixtures;
  const beneficiary = { bankCode: '058', accountNumber: '0123456789', accountName: 'Chaos Beneficiary' };
  const kind = fc.constantFrom('bank_transfer', 'wallet_transfer', 'child_debit', 'child_bank_transfer');
  const plan = fc.record({
    kind,
    naira: fc.integer({ min: 1, max: 60_000 }),
    kobo: fc.integer({ min: 0, max: 99 }),
    deliveries: fc.integer({ min: 1, max: 3 }),
    concurrent: fc.boolean(),
    crash: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
    fault: fc.oneof(
      { weight: 3, arbitrary: fc.constant('none' as const) },
      { weight: 2, arbitrary: fc.constantFrom(...FAULTS) },
    ),
  });
  return fc.sample(plan, { numRuns: PAYOUTS, seed }).map((p, i) => {
    const narration = `chaos ${i}`;
    const common = { currency: 'NGN' as const, narration };
    let request: CreatePayoutRequest;
    switch (p.kind) {
      case 'bank_transfer':
        request = { type: 'bank_transfer', amount: p.naira * 100 + p.kobo, ...common, beneficiary };
        break;
      case 'wallet_transfer':
        request = {
          type: 'wallet_transfer',
          amount: p.naira * 100,
          ...common,
          sourceWalletId: f.merchantWalletId,
          destinationWalletId: f.stores[0]?.walletId ?? '',
        };
        break;
      case 'child_debit':
        request = {
          type: 'child_debit',
          amount: (p.naira % 500) * 100 + p.kobo + 1,
          ...common,
          childAccountId: f.childAccounts[0]?.id ?? '',
        };
        break;
      default:
        request = {
          type: 'child_bank_transfer',
          amount: (p.naira % 500) * 100 + p.kobo + 1,
          ...common,
          childAccountId: f.childAccounts[0]?.id ?? '',
          beneficiary,
        };
    }
    return { request, deliveries: p.deliveries, concurrent: p.concurrent, crash: p.crash, fault: p.fault };
  });
}

const pathOf: Record<string, (typeof MONEY_PATHS)[number]> = {
  bank_transfer: '/settlement/instant/payout',
  wallet_transfer: '/wallet/transfer',
  child_debit: '/child/debit',
  child_bank_transfer: '/child/bank',
};

describe('chaos: faults, duplicates and crashes', () => {
  it('pays each of 300 payouts exactly once through 500s before and after commit, resets, timeouts, duplicates and crashes: none twice, none lost, 99 % succeeded, the ledger exact to the kobo', async () => {
    const normal = h.engineWith({ gateway: new ProviderPayoutGateway(impatient) });
    const dying = h.engineWith({ store: crashing(h.store), gateway: new ProviderPayoutGateway(impatient) });
    const balancesBefore = new Map(h.sandbox.ledger().wallets.map((w) => [w.id, toKobo(w.balance)]));
    const plans = planFor(h, 20261122);

    const deliver = async (plan: Plan, index: number, engine: PayoutEngine) => {
      const { payout } = await engine.create(command(plan.request, `chaos-${index}`));
      await engine.submit(payout.id).catch(() => undefined);
    };

    // Waves of payouts at a time, each with its fault queued on its endpoint just before it is sent.
    for (let start = 0; start < plans.length; start += WAVE) {
      const wave = plans.slice(start, start + WAVE);
      await Promise.all(
        wave.map(async (plan, offset) => {
          const index = start + offset;
          if (plan.fault !== 'none') {
            h.sandbox.injectFault({
              path: pathOf[plan.request.type] ?? '*',
              fault: plan.fault,
              times: 1,
              ...(plan.fault === 'latency' && { latencyMs: CLIENT_TIMEOUT_MS * 2 }),
            });
          }
          const first = plan.crash ? dying : normal;
          if (plan.concurrent) {
            await Promise.all(
              Array.from({ length: plan.deliveries }, (_, d) =>
                deliver(plan, index, d === 0 ? first : normal),
              ),
            );
          } else {
            for (let d = 0; d < plan.deliveries; d++) await deliver(plan, index, d === 0 ? first : normal);
          }
        }),
      );
    }
    // Lookups fail now and then too.
    h.sandbox.injectFault({ path: '/transaction/wallet', fault: 'error-503', times: 3 });

    // Let time pass: leases expire, grace periods end, new attempts come due; until nothing is left to decide.
    const { config } = h.engine.ctx;
    const undecidedStatuses = [
      PayoutStatus.Pending,
      PayoutStatus.Submitting,
      PayoutStatus.Unknown,
      PayoutStatus.Scheduled,
      PayoutStatus.PendingApproval,
    ];
    let rounds = 0;
    for (; rounds < 40; rounds++) {
      h.clock.advance(
        Math.max(config.submitLeaseMs, config.retryBaseMs * 4, config.reconcileGraceMs) +
          config.reconcileIntervalMs,
      );
      await payoutSweeper(normal).sweep({ limit: 500, concurrency: 8 });
      await reconcilePayouts(normal.ctx, { limit: 500 });
      const open = await Promise.all(undecidedStatuses.map((status) => h.store.countByStatus(status, 1)));
      if (open.every((count) => count === 0)) break;
    }
    expect(rounds).toBeLessThan(40);
    // Every attempt proved absent and followed by a new one stays watched; none shows up in the window.
    h.clock.advance(config.watchWindowMs + 1);
    const watch = await reconcilePayouts(normal.ctx, { limit: 500 });
    expect(watch.paidTwice).toBe(0);
    h.sandbox.clearFaults();

    const payouts: Payout[] = [];
    for (let i = 0; i < plans.length; i++) {
      const found = await h.engine.create(command(plans[i]?.request as CreatePayoutRequest, `chaos-${i}`));
      expect(found.replayed).toBe(true);
      payouts.push(found.payout);
    }

    const ledger = h.sandbox.ledger().operations;
    const entriesByPayout = new Map<string, typeof ledger>();
    for (const entry of ledger) {
      const match = /po_([0-9A-Z]{26})/.exec(entry.narration);
      if (!match?.[1]) continue;
      entriesByPayout.set(match[1], [...(entriesByPayout.get(match[1]) ?? []), entry]);
    }

    // One payout per key; nothing is left undecided without a person being told.
    expect(new Set(payouts.map((p) => p.id)).size).toBe(PAYOUTS);
    const undecided = payouts.filter(
      (p) => !TERMINAL_STATUSES.has(p.status) && p.status !== PayoutStatus.NeedsReview,
    );
    expect(undecided.map((p) => `${p.id}:${p.status}`)).toEqual([]);

    // Never paid twice; succeeded exactly when the provider holds the money movement.
    for (const payout of payouts) {
      const entries = entriesByPayout.get(payout.id) ?? [];
      expect(entries.length, `payout ${payout.id}`).toBeLessThanOrEqual(1);
      if (payout.status === PayoutStatus.Succeeded) {
        expect(entries, `succeeded payout ${payout.id} has a ledger entry`).toHaveLength(1);
        expect(toKobo(entries[0]?.amount ?? 0)).toBe(payout.amountKobo);
        expect(payout.receipt?.transactionId).toBe(entries[0]?.transactionId);
      } else if (payout.status !== PayoutStatus.NeedsReview) {
        expect(entries, `${payout.status} payout ${payout.id} moved no money`).toHaveLength(0);
      }
    }
    // Every ledger entry with a marker belongs to one of our payouts.
    const ids = new Set(payouts.map((p) => p.id));
    for (const id of entriesByPayout.keys()) expect(ids.has(id)).toBe(true);

    // Money that left the merchant's wallets equals the succeeded bank payouts plus their charges, to the kobo.
    const balancesAfter = new Map(h.sandbox.ledger().wallets.map((w) => [w.id, toKobo(w.balance)]));
    let left = 0;
    for (const [id, before] of balancesBefore) left += before - (balancesAfter.get(id) ?? 0);
    const outflow = payouts
      .filter((p) => p.status === PayoutStatus.Succeeded)
      .reduce((sum, p) => {
        const external =
          p.instruction.type === 'bank_transfer' || p.instruction.type === 'child_bank_transfer';
        return sum + (external ? p.amountKobo : 0) + (p.receipt?.chargesKobo ?? 0);
      }, 0);
    expect(left).toBe(outflow);

    // No log line, stored payout or audit event carries the provider's token or PIN.
    const audits = await Promise.all(payouts.map((p) => h.getWithAudit(p.id).then(({ audit }) => audit)));
    const everything = JSON.stringify([h.logger.entries, payouts, audits]);
    expect(everything).not.toContain(HARNESS_TOKEN);
    expect(everything).not.toContain(HARNESS_PIN);
    expect(h.logger.entries.length).toBeGreaterThan(PAYOUTS);

    // The provider accepts every one of them: transient faults end in success, by a new attempt where the
    // first one was proved absent; nothing is paid twice and nothing waits for a person.
    const succeeded = payouts.filter((p) => p.status === PayoutStatus.Succeeded);
    expect(succeeded.length / PAYOUTS).toBeGreaterThanOrEqual(0.99);
    expect(payouts.filter((p) => p.status === PayoutStatus.NeedsReview)).toHaveLength(0);
    expect(payouts.filter((p) => p.paidTwice)).toHaveLength(0);
    // The run really exercised every path: re-attempts after proved absence, and watches that ended quietly.
    const reattempted = payouts.filter((p) => (p.watchedAttempts?.length ?? 0) > 0);
    expect(reattempted.length).toBeGreaterThan(0);
    for (const p of reattempted) expect(p.watchEndedAt, `watch of ${p.id}`).toBeDefined();
    expect(payouts.some((p) => p.receipt && (p.attempt?.providerAttempt ?? 1) > 1)).toBe(true);
  }, 180_000);
});
