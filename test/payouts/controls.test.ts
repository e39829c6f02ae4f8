import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalForbiddenError } from '../../lib/controls/index.js';
import { pausePayouts, resumePayouts } from '../../lib/payouts/engine/controls.js';
import { approvePayout } from '../../lib/payouts/engine/payout-commands.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { TransitionWrite } from '../../lib/payouts/store/payout-store.js';
import { InvalidTransitionError } from '../../lib/shared/errors.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import {
  alice,
  bankTransfer,
  bob,
  command,
  type EngineHarness,
  ledgerEntriesOf,
  startEngineHarness,
} from '../support/engine-harness.js';

const APPROVAL_THRESHOLD = 1_000_000;
const DAILY_CAP = 1_000_000;

let h: EngineHarness;
let keyCounter = 0;
const key = (label: string) => `${label}-${++keyCounter}`;

beforeAll(async () => {
  h = await startEngineHarness({
    approvalThresholdKobo: APPROVAL_THRESHOLD,
    dailyCapKobo: DAILY_CAP,
    maxInstructionKobo: DAILY_CAP,
  });
});
afterAll(async () => h.close());
beforeEach(async () => {
  h.sandbox.reset();
  await resumePayouts(h.engine.ctx, alice);
});

describe('approvals', () => {
  it('holds a payout at or above the threshold until a second person approves it', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(APPROVAL_THRESHOLD), key('approve')));
    expect(payout.status).toBe(PayoutStatus.PendingApproval);
    await h.engine.submit(payout.id);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);

    await expect(approvePayout(h.engine.ctx, payout.id, alice)).rejects.toBeInstanceOf(
      ApprovalForbiddenError,
    );
    const approved = await approvePayout(h.engine.ctx, payout.id, bob);
    expect(approved).toMatchObject({ status: PayoutStatus.Pending, approvedBy: { id: 'bob' } });
    await expect(approvePayout(h.engine.ctx, payout.id, bob)).rejects.toBeInstanceOf(InvalidTransitionError);
  });
});

describe('cancelling', () => {
  it('cancels a payout before submission and refuses after', async () => {
    const { payout: early } = await h.engine.create(command(bankTransfer(10_000), key('cancel-early')));
    expect((await h.engine.cancel(early.id, bob, 'duplicate invoice')).status).toBe(PayoutStatus.Cancelled);
    await h.engine.submit(early.id);
    expect(ledgerEntriesOf(h.sandbox, early.id)).toHaveLength(0);

    const { payout: late } = await h.engine.create(command(bankTransfer(10_000), key('cancel-late')));
    await h.engine.submit(late.id);
    await expect(h.engine.cancel(late.id, bob)).rejects.toBeInstanceOf(InvalidTransitionError);
  });
});

describe('pause', () => {
  it('submits nothing while paused and loses nothing: pending payouts go out after resume', async () => {
    await pausePayouts(h.engine.ctx, bob, 'bank incident');
    const { payout } = await h.engine.create(command(bankTransfer(20_000), key('paused')));
    const result = await h.engine.submit(payout.id);
    expect(result).toMatchObject({ kind: 'skipped', why: 'payouts are paused' });
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Pending);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
    expect(await h.engine.controls()).toMatchObject({
      paused: true,
      reason: 'bank incident',
      updatedBy: { id: 'bob' },
    });

    await resumePayouts(h.engine.ctx, bob);
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
  });

  it('sends nothing when the pause lands right after the claim committed, and gives the claim back', async () => {
    const capDay = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
    const capBefore = await h.store.getCapUsage('merchant', capDay);
    // Another process (the ops CLI, say) pauses the moment this one's claim has committed: the claim's own
    // transaction no longer checks the pause, the read that follows it must.
    const transition = async (write: TransitionWrite) => {
      const after = await h.store.transition(write);
      if (after.status === PayoutStatus.Submitting) {
        await h.store.setControls({ paused: true, reason: 'landed after the claim' });
      }
      return after;
    };
    const pausingAfterClaim = new Proxy(h.store, {
      get(store, name) {
        if (name === 'transition') return transition;
        const value: unknown = Reflect.get(store, name, store);
        return typeof value === 'function' ? value.bind(store) : value;
      },
    });
    const engine = h.engineWith({ store: pausingAfterClaim });
    const { payout } = await engine.create(command(bankTransfer(30_000), key('pause-after-claim')));

    const result = await engine.submit(payout.id);

    expect(result).toMatchObject({ kind: 'skipped', why: 'payouts are paused' });
    const { payout: after, audit } = await h.getWithAudit(payout.id);
    expect(after).toMatchObject({ status: PayoutStatus.Pending, submissionCount: 0 });
    expect(after.attempt).toBeUndefined();
    expect(after.nextActionAt).toBeUndefined();
    expect(audit.map((event) => event.to)).toEqual(['pending', 'submitting', 'pending']);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
    expect(await h.store.getCapUsage('merchant', capDay)).toBe(capBefore);

    // While it knows payouts are paused, the engine claims nothing: no write, no provider call.
    const again = await engine.submit(payout.id);
    expect(again).toMatchObject({ kind: 'skipped', why: 'payouts are paused' });
    expect((await h.getWithAudit(payout.id)).audit).toHaveLength(3);

    await resumePayouts(h.engine.ctx, bob);
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });
});

describe('daily cap per source wallet', () => {
  it('never lets concurrent payouts exceed the cap', async () => {
    const childAccountId = h.fixtures.childAccounts[0]?.id ?? '';
    const amount = 150_000;
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        h.engine.create(
          command(
            { type: 'child_debit', amount, currency: 'NGN', narration: `cap ${i}`, childAccountId },
            key('cap'),
          ),
        ),
      ),
    );
    await Promise.all(created.map(({ payout }) => h.engine.submit(payout.id)));
    const final = await Promise.all(created.map(({ payout }) => h.engine.get(payout.id)));
    const succeeded = final.filter((payout) => payout?.status === PayoutStatus.Succeeded);
    const capped = final.filter((payout) => payout?.failure?.code === 'DAILY_CAP_EXCEEDED');
    expect(succeeded).toHaveLength(Math.floor(DAILY_CAP / amount));
    expect(capped).toHaveLength(12 - succeeded.length);
    const day = succeeded[0]?.capDay ?? '';
    expect(await h.store.getCapUsage(`child:${childAccountId}`, day)).toBe(succeeded.length * amount);
    for (const payout of capped) expect(ledgerEntriesOf(h.sandbox, payout?.id ?? '')).toHaveLength(0);
  });
});

describe('one account, one cap counter', () => {
  const walletTransfer = (sourceWalletId: string, destinationWalletId: string, amount: number) => ({
    type: 'wallet_transfer' as const,
    amount,
    currency: 'NGN' as const,
    narration: 'to the branch',
    sourceWalletId,
    destinationWalletId,
  });

  it('refuses a wallet transfer out of the main wallet once bank transfers used its cap: the main wallet has one counter', async () => {
    const engine = h.engineWith({ config: { mainWalletId: h.fixtures.merchantWalletId } });
    const branch = h.fixtures.stores[0]?.walletId ?? '';
    const usedBefore = await h.store.getCapUsage('merchant', calendarDayIn('Africa/Lagos', h.clock.now()));
    const { payout: bank } = await engine.create(command(bankTransfer(900_000), key('one-wallet-bank')));
    await engine.submit(bank.id);
    expect((await engine.get(bank.id))?.status).toBe(PayoutStatus.Succeeded);

    const { payout: transfer } = await engine.create(
      command(walletTransfer(h.fixtures.merchantWalletId, branch, 900_000), key('one-wallet-transfer')),
    );
    expect(transfer.capKey).toBe(bank.capKey);
    await engine.submit(transfer.id);
    expect((await engine.get(transfer.id))?.failure?.code).toBe('DAILY_CAP_EXCEEDED');
    expect(ledgerEntriesOf(h.sandbox, transfer.id)).toHaveLength(0);
    const sent = await engine.get(bank.id);
    expect(await h.store.getCapUsage(bank.capKey, sent?.capDay ?? '')).toBe(usedBefore + 900_000);
  });

  it('counts a transfer out of any wallet against the main wallet when the main wallet is not configured, so it fails closed', async () => {
    const branch = h.fixtures.stores[0]?.walletId ?? '';
    const other = h.fixtures.stores[1]?.walletId ?? '';
    const { payout: bank } = await h.engine.create(command(bankTransfer(100), key('unset-bank')));
    const { payout: transfer } = await h.engine.create(
      command(walletTransfer(branch, other, 100), key('unset-transfer')),
    );
    expect(transfer.capKey).toBe(bank.capKey);
  });

  it("counts a branch wallet's transfer on its own counter once the main wallet is configured", async () => {
    const engine = h.engineWith({ config: { mainWalletId: h.fixtures.merchantWalletId } });
    const branch = h.fixtures.stores[0]?.walletId ?? '';
    const other = h.fixtures.stores[1]?.walletId ?? '';
    const { payout: bank } = await engine.create(command(bankTransfer(100), key('set-bank')));
    const { payout: transfer } = await engine.create(
      command(walletTransfer(branch, other, 100), key('set-transfer')),
    );
    expect(transfer.capKey).not.toBe(bank.capKey);
    expect(transfer.capKey).toBe(`wallet:${branch}`);
  });
});
