import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toKobo } from '../../lib/money.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { CreatePayoutRequest } from '../../lib/payouts/schemas.js';
import {
  ConcurrentModificationError,
  IdempotencyConflictError,
  ValidationError,
} from '../../lib/shared/errors.js';
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

describe('creating a payout', () => {
  it('accepts a request once per idempotency key and audits the acceptance', async () => {
    const { payout, replayed } = await h.engine.create(command(bankTransfer(250_000), key('create')));
    expect(replayed).toBe(false);
    expect(payout.status).toBe(PayoutStatus.Pending);
    const { audit } = await h.getWithAudit(payout.id);
    expect(audit.map((event) => [event.from, event.to])).toEqual([[null, 'pending']]);
    expect(audit[0]?.actor.id).toBe('alice');
  });

  it('returns the existing payout and calls nobody when the same request is replayed', async () => {
    const k = key('replay');
    const first = await h.engine.create(command(bankTransfer(250_000), k));
    await h.engine.submit(first.payout.id);
    const calls = h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
    const second = await h.engine.create(command(bankTransfer(250_000), k));
    expect(second.replayed).toBe(true);
    expect(second.payout.id).toBe(first.payout.id);
    expect(second.payout.status).toBe(PayoutStatus.Succeeded);
    expect(h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0).toBe(calls);
  });

  it('refuses the same key with a different request', async () => {
    const k = key('conflict');
    await h.engine.create(command(bankTransfer(250_000), k));
    await expect(h.engine.create(command(bankTransfer(250_100), k))).rejects.toBeInstanceOf(
      IdempotencyConflictError,
    );
  });

  it('creates one payout when the same request arrives ten times at once', async () => {
    const k = key('concurrent');
    const results = await Promise.all(
      Array.from({ length: 10 }, () => h.engine.create(command(bankTransfer(123_400), k))),
    );
    const ids = new Set(results.map((result) => result.payout.id));
    expect(ids.size).toBe(1);
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
  });

  it('refuses kobo amounts on the whole-naira wallet endpoints, naming the field', async () => {
    const request: CreatePayoutRequest = {
      type: 'wallet_transfer',
      amount: 10_050,
      currency: 'NGN',
      narration: 'float top-up',
      sourceWalletId: h.fixtures.merchantWalletId,
      destinationWalletId: h.fixtures.stores[0]?.walletId ?? '',
    };
    const error = await h.engine.create(command(request, key('kobo'))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]?.path).toBe('amount');
    expect((error as ValidationError).message).toMatch(/whole number of naira/);
  });

  it('refuses amounts above the per-payout maximum and a scheduleAt in the past', async () => {
    const big = await h.engine
      .create(command(bankTransfer(h.engine.ctx.config.maxInstructionKobo + 1), key('max')))
      .catch((e: unknown) => e);
    expect((big as ValidationError).issues.map((issue) => issue.path)).toEqual(['amount']);
    const past = new Date(h.clock.now().getTime() - 1000).toISOString();
    const late = await h.engine
      .create(command(bankTransfer(1000, { scheduleAt: past }), key('past')))
      .catch((e: unknown) => e);
    expect((late as ValidationError).issues.map((issue) => issue.path)).toEqual(['scheduleAt']);
  });
});

describe('submitting a payout', () => {
  it('pays a bank transfer once and records the provider receipt and charges', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(2_945_090), key('pay')));
    const result = await h.engine.submit(payout.id);
    expect(result.kind).toBe('sent');
    const paid = await h.engine.get(payout.id);
    expect(paid?.status).toBe(PayoutStatus.Succeeded);
    const entries = ledgerEntriesOf(h.sandbox, payout.id);
    expect(entries).toHaveLength(1);
    expect(toKobo(entries[0]?.amount ?? 0)).toBe(2_945_090);
    expect(paid?.receipt?.transactionId).toBe(entries[0]?.transactionId);
    expect(paid?.receipt?.chargesKobo).toBe(toKobo(entries[0]?.charges ?? -1));
    expect(entries[0]?.metadata).toMatchObject({ payoutId: payout.id });
    const { audit } = await h.getWithAudit(payout.id);
    expect(audit.map((event) => event.to)).toEqual(['pending', 'submitting', 'succeeded']);
  });

  it.each([
    [
      'wallet_transfer',
      (f: EngineHarness['fixtures']) => ({
        sourceWalletId: f.merchantWalletId,
        destinationWalletId: f.stores[0]?.walletId,
      }),
    ],
    ['wallet_credit', (f: EngineHarness['fixtures']) => ({ walletId: f.stores[0]?.walletId })],
    ['wallet_debit', (f: EngineHarness['fixtures']) => ({ walletId: f.stores[1]?.walletId })],
    ['child_debit', (f: EngineHarness['fixtures']) => ({ childAccountId: f.childAccounts[0]?.id })],
    [
      'child_bank_transfer',
      (f: EngineHarness['fixtures']) => ({
        childAccountId: f.childAccounts[0]?.id,
        beneficiary: { bankCode: '044', accountNumber: '0987654321', accountName: 'Bola Ltd' },
      }),
    ],
  ] as const)('pays a %s through its own endpoint', async (type, fields) => {
    const request = {
      type,
      amount: 500_000,
      currency: 'NGN',
      narration: `test ${type}`,
      ...fields(h.fixtures),
    } as CreatePayoutRequest;
    const { payout } = await h.engine.create(command(request, key(type)));
    await h.engine.submit(payout.id);
    const paid = await h.engine.get(payout.id);
    expect(paid?.status, JSON.stringify(paid?.failure)).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('sends, once, a payout whose claim committed but whose answer was lost', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(107_000), key('claim-lost')));
    // DynamoDB Local cannot commit and then lose the answer, so the store port is wrapped: the first claim
    // commits, then reports the conflict the SDK's retry of it would have met.
    let lost = false;
    const store = replaceMethod(h.store, 'transition', async (write) => {
      const after = await h.store.transition(write);
      if (!lost && after.status === PayoutStatus.Submitting) {
        lost = true;
        throw new ConcurrentModificationError('payout', after.id);
      }
      return after;
    });
    const result = await h.engineWith({ store }).submit(payout.id);
    expect(lost).toBe(true);
    expect(result.payout.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('calls the provider once when five workers submit the same payout at once', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(100_000), key('race')));
    const results = await Promise.all(Array.from({ length: 5 }, () => h.engine.submit(payout.id)));
    expect(results.filter((result) => result.kind === 'sent')).toHaveLength(1);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
  });

  it('fails a payout the provider refuses, and releases its daily-cap reservation', async () => {
    const request: CreatePayoutRequest = {
      type: 'child_debit',
      amount: 500_000,
      currency: 'NGN',
      narration: 'more than the child holds',
      // The third seeded child account holds 1,000.00 naira.
      childAccountId: h.fixtures.childAccounts[2]?.id ?? '',
    };
    const { payout } = await h.engine.create(command(request, key('refused')));
    await h.engine.submit(payout.id);
    const failed = await h.engine.get(payout.id);
    expect(failed?.status).toBe(PayoutStatus.Failed);
    expect(failed?.failure?.code).toBe('PROVIDER_422');
    expect(await h.store.getCapUsage(payout.capKey, failed?.capDay ?? '')).toBe(0);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
  });

  it('keeps the sweeper off a payout its creator submits inline, and pays it after the hold if the creator never did', async () => {
    const held = await h.engine.create({
      ...command(bankTransfer(105_000), key('inline-held')),
      submitsInline: true,
    });
    expect(held.payout.nextActionAt).toBe(
      new Date(h.clock.now().getTime() + h.engine.ctx.config.inlineSubmitHoldMs).toISOString(),
    );
    // The creator's own submission is not held back.
    const mine = await h.engine.create({
      ...command(bankTransfer(106_000), key('inline-mine')),
      submitsInline: true,
    });
    expect((await h.engine.submit(mine.payout.id)).payout.status).toBe(PayoutStatus.Succeeded);

    // The creator "crashed" before submitting `held`: the sweeper leaves it alone during the hold...
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(held.payout.id))?.status).toBe(PayoutStatus.Pending);
    expect(ledgerEntriesOf(h.sandbox, held.payout.id)).toHaveLength(0);
    // ...and sends it once the hold is over.
    h.clock.advance(h.engine.ctx.config.inlineSubmitHoldMs);
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(held.payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, held.payout.id)).toHaveLength(1);
  });

  it('puts a rate-limited payout back to pending and pays it on a later sweep', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(100_000), key('429')));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 1 });
    await h.engine.submit(payout.id);
    const waiting = await h.engine.get(payout.id);
    expect(waiting?.status).toBe(PayoutStatus.Pending);
    expect(waiting?.nextActionAt).toBeDefined();
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);

    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Pending);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
    h.clock.advance(h.engine.ctx.config.retryBaseMs);
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });
});
