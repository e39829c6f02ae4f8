import { describe, expect, it } from 'vitest';
import { ApprovalForbiddenError, type GateLimits, type Principal } from '../../lib/controls/index.js';
import { RunState } from '../../lib/payout-runs/model.js';
import { PayoutRunService, type RunPayouts } from '../../lib/payout-runs/run-service.js';
import { RunWarningsError } from '../../lib/payout-runs/run-submission.js';
import { InMemoryPayoutRunStore } from '../../lib/payout-runs/store/in-memory-run-store.js';
import type { Payout } from '../../lib/payouts/index.js';
import {
  IdempotencyConflictError,
  InvalidTransitionError,
  ValidationError,
} from '../../lib/shared/errors.js';

/**
 * Payroll runs' service against its store's in-memory implementation: what is accepted, held, approved, rejected
 * and cancelled, and by whom. test/payout-runs/payout-runs.test.ts runs the same through the API, DynamoDB Local
 * and the fleet.
 */
const alice: Principal = { id: 'alice', kind: 'user' };
const bola: Principal = { id: 'bola', kind: 'user' };
const chidi: Principal = { id: 'chidi', kind: 'user' };
const limits: GateLimits = {
  maxInstructionKobo: 5_000_000,
  approvalThresholdKobo: 1_000_000,
  secondApprovalThresholdKobo: 3_000_000,
};

/** The engine as the run service uses it, in memory: it only cancels what a test gave it. */
function payoutsWith(payouts: Payout[] = []) {
  const cancelled: string[] = [];
  const byId = new Map(payouts.map((payout) => [payout.id, payout]));
  const engine: RunPayouts = {
    create: async () => {
      throw new Error('the service never creates payouts: the materialiser does');
    },
    get: async (id) => byId.get(id),
    cancel: async (id) => {
      cancelled.push(id);
      const payout = byId.get(id);
      if (!payout) throw new Error(`no payout ${id}`);
      return { ...payout, status: 'cancelled' };
    },
  };
  return { engine, cancelled };
}

function serviceWith(payouts: RunPayouts = payoutsWith().engine) {
  const store = new InMemoryPayoutRunStore();
  let tick = 0;
  const clock = { now: () => new Date(Date.UTC(2026, 11, 1, 9, 0, tick++)) };
  return { store, runs: new PayoutRunService({ store, payouts, limits: () => limits, clock }) };
}

/** `count` rows of `amountKobo` each, to distinct accounts. */
function entriesOf(count: number, amountKobo: number, tag = 'pay') {
  return Array.from({ length: count }, (_, i) => ({
    reference: `${tag}-${i + 1}`,
    amount: amountKobo,
    bankCode: '058',
    accountNumber: String(1_000_000_000 + i),
    accountName: `Staff ${i + 1}`,
    narration: 'December salary',
  }));
}

const submitted = (entries: readonly unknown[], idempotencyKey: string, actor = alice) => ({
  entries,
  source: 'json' as const,
  fileSha256: 'f'.repeat(64),
  actor,
  idempotencyKey,
});

describe('the payout run service', () => {
  it('accepts a run below the approval threshold for the sweep to pay, and replays it for the same key and rows', async () => {
    const { runs } = serviceWith();
    const { run, replayed } = await runs.submit(submitted(entriesOf(3, 100_000), 'dec-1'));
    expect(run).toMatchObject({
      state: RunState.Materialising,
      count: 3,
      totalKobo: 300_000,
    });
    expect(replayed).toBe(false);
    const again = await runs.submit(submitted(entriesOf(3, 100_000), 'dec-1'));
    expect(again).toEqual({ run, replayed: true });
    await expect(runs.submit(submitted(entriesOf(2, 100_000), 'dec-1'))).rejects.toBeInstanceOf(
      IdempotencyConflictError,
    );
  });

  it('refuses a bad row by its number and stores nothing', async () => {
    const { runs } = serviceWith();
    const entries = [...entriesOf(2, 100_000), { ...entriesOf(1, 100_000, 'bad')[0], bankCode: '' }];
    const refused = await runs.submit(submitted(entries, 'dec-2')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).issues.map((issue) => issue.path)).toEqual(['rows[2].bankCode']);
    expect((await runs.list({ limit: 10 })).items).toEqual([]);
  });

  it('holds a run whose total reaches the threshold for a second person; its requester cannot release it', async () => {
    const { runs } = serviceWith();
    const { run } = await runs.submit(submitted(entriesOf(4, 400_000), 'dec-3'));
    expect(run.state).toBe(RunState.PendingApproval);
    await expect(runs.approve(run.runId, alice)).rejects.toBeInstanceOf(ApprovalForbiddenError);
    const approved = await runs.approve(run.runId, bola);
    expect(approved).toMatchObject({ state: RunState.Materialising, approvedBy: bola });
    await expect(runs.approve(run.runId, chidi)).rejects.toBeInstanceOf(InvalidTransitionError);
  });

  it('takes two approvals by two people for a total at the second-approval threshold', async () => {
    const { runs } = serviceWith();
    const { run } = await runs.submit(submitted(entriesOf(4, 800_000), 'dec-4'));
    const first = await runs.approve(run.runId, bola);
    expect(first.state).toBe(RunState.PendingApproval);
    expect(first.firstApproval?.actor).toEqual(bola);
    await expect(runs.approve(run.runId, bola)).rejects.toBeInstanceOf(ApprovalForbiddenError);
    expect((await runs.approve(run.runId, chidi)).state).toBe(RunState.Materialising);
  });

  it('ends a rejected run cancelled with who, why and when, for good', async () => {
    const { runs } = serviceWith();
    const { run } = await runs.submit(submitted(entriesOf(4, 400_000), 'dec-5'));
    await expect(runs.reject(run.runId, alice, 'mine')).rejects.toBeInstanceOf(ApprovalForbiddenError);
    const rejected = await runs.reject(run.runId, bola, 'wrong month');
    expect(rejected.state).toBe(RunState.Cancelled);
    expect(rejected.rejection).toMatchObject({ actor: bola, reason: 'wrong month' });
    await expect(runs.approve(run.runId, chidi)).rejects.toBeInstanceOf(InvalidTransitionError);
  });

  it('asks for an earlier run of the same rows to be acknowledged, then accepts it', async () => {
    const { runs } = serviceWith();
    const first = await runs.submit(submitted(entriesOf(2, 100_000), 'dec-6a'));
    const warned = await runs
      .submit(submitted(entriesOf(2, 100_000), 'dec-6b'))
      .catch((error: unknown) => error);
    expect(warned).toBeInstanceOf(RunWarningsError);
    expect((warned as RunWarningsError).warnings).toEqual([
      expect.objectContaining({ kind: 'duplicate_run', runId: first.run.runId }),
    ]);
    const { run } = await runs.submit({
      ...submitted(entriesOf(2, 100_000), 'dec-6b'),
      acknowledgeDuplicates: true,
    });
    expect(run.acknowledged?.duplicateRunIds).toEqual([first.run.runId]);
  });

  it('cancels the payouts of its rows that were made, and refuses to cancel twice', async () => {
    const payout = { id: 'PAYOUT-1', status: 'pending' } as Payout;
    const { engine, cancelled } = payoutsWith([payout]);
    const { store, runs } = serviceWith(engine);
    const { run } = await runs.submit(submitted(entriesOf(2, 100_000), 'dec-7'));
    await store.recordRow({ runId: run.runId, index: 0 }, { payoutId: payout.id });
    const result = await runs.cancel(run.runId, bola, 'paid by hand');
    expect(result.run).toMatchObject({ state: RunState.Cancelled, cancelledBy: bola });
    expect(cancelled).toEqual([payout.id]);
    await expect(runs.cancel(run.runId, bola)).rejects.toBeInstanceOf(InvalidTransitionError);
  });
});
