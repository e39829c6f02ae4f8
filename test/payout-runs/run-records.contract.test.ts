import { afterAll, describe, expect, it } from 'vitest';
import { type PayoutRun, type RunRow, RunState } from '../../lib/payout-runs/model.js';
import type { PayoutRunRecords } from '../../lib/payout-runs/run-records.js';
import { DynamoDbPayoutRunStore, FileClaimedError } from '../../lib/payout-runs/run-store.js';
import { InMemoryPayoutRunStore } from '../../lib/payout-runs/store/in-memory-run-store.js';
import { InvalidCursorError } from '../../lib/shared/errors.js';
import { ulid } from '../../lib/shared/ids.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * The payout runs' records' contract, run against the table (DynamoDB Local) and against memory, so the in-memory
 * store the service's unit tests use cannot drift from the one that ships.
 */
const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});

const implementations: [string, () => Promise<PayoutRunRecords>][] = [
  [
    'DynamoDbPayoutRunStore',
    async () => {
      const table = await createTestTable('payout-run-records');
      closers.push(() => table.client.destroy());
      return new DynamoDbPayoutRunStore(table.client, table.tableName);
    },
  ],
  ['InMemoryPayoutRunStore', async () => new InMemoryPayoutRunStore()],
];

const ada = { id: 'ada', kind: 'user' } as const;
const bola = { id: 'bola', kind: 'user' } as const;
let minute = 0;

function runOf(overrides: Partial<PayoutRun> = {}): PayoutRun {
  minute += 1;
  const at = new Date(Date.UTC(2026, 11, 1, 9, minute));
  return {
    runId: ulid(at),
    state: RunState.PendingApproval,
    count: 2,
    totalKobo: 300_000,
    largestRows: [{ row: 2, reference: 'pay-2', amountKobo: 200_000 }],
    fileSha256: 'a'.repeat(64),
    contentFingerprint: `content-${minute}`,
    source: 'csv',
    requestedBy: ada,
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    materialised: 0,
    ...overrides,
  };
}

function rowsOf(run: PayoutRun, count = run.count): RunRow[] {
  return Array.from({ length: count }, (_, index) => ({
    runId: run.runId,
    index,
    reference: `pay-${index + 1}`,
    amountKobo: 100_000 * (index + 1),
    beneficiary: {
      bankCode: '058',
      accountNumber: `01234567${String(index).padStart(2, '0')}`,
      accountName: 'Ada Obi',
    },
    narration: 'salary',
  }));
}

describe.each(implementations)('%s', (_name, make) => {
  it('stores a run with its rows and key, and answers the key with the request it came with', async () => {
    const records = await make();
    const run = runOf();
    expect(await records.create(run, rowsOf(run), 'payroll-1', 'fp-1')).toEqual({ created: true });
    expect(await records.get(run.runId)).toEqual(run);
    expect(await records.keyedRun('payroll-1')).toEqual({ run, requestFingerprint: 'fp-1' });
    expect(await records.keyedRun('payroll-unknown')).toBeUndefined();
    expect((await records.allRows(run.runId)).map((row) => row.reference)).toEqual(['pay-1', 'pay-2']);
  });

  it('answers the run that holds a key instead of storing a second one under it', async () => {
    const records = await make();
    const first = runOf();
    await records.create(first, rowsOf(first), 'payroll-2', 'fp');
    const second = runOf();
    expect(await records.create(second, rowsOf(second), 'payroll-2', 'fp')).toEqual({
      created: false,
      ownerId: first.runId,
    });
    expect(await records.get(second.runId)).toBeUndefined();
  });

  it('lets one run of the same rows claim the file, and lists the runs of the same rows oldest first', async () => {
    const records = await make();
    const first = runOf({ contentFingerprint: 'same-rows' });
    await records.create(first, rowsOf(first), 'payroll-3a', 'fp', { claimFile: true });
    const second = runOf({ contentFingerprint: 'same-rows' });
    await expect(
      records.create(second, rowsOf(second), 'payroll-3b', 'fp', { claimFile: true }),
    ).rejects.toBeInstanceOf(FileClaimedError);
    expect(await records.get(second.runId)).toBeUndefined();
    await records.create(second, rowsOf(second), 'payroll-3b', 'fp');
    expect(await records.runsWithContent('same-rows')).toEqual([first.runId, second.runId]);
    expect(await records.runsWithContent('other-rows')).toEqual([]);
  });

  it('lists runs newest first, by state, page by page, and refuses a cursor it did not issue', async () => {
    const records = await make();
    const runs = [runOf(), runOf({ state: RunState.Materialising }), runOf()];
    for (const [i, run] of runs.entries()) await records.create(run, rowsOf(run, 1), `payroll-4-${i}`, 'fp');
    const first = await records.list({ limit: 2 });
    const rest = await records.list({ limit: 2, ...(first.nextCursor && { cursor: first.nextCursor }) });
    const listed = [...first.items, ...rest.items].map((run) => run.runId);
    expect(listed.slice(0, 3)).toEqual([runs[2]?.runId, runs[1]?.runId, runs[0]?.runId]);
    const pending = await records.list({ limit: 10, state: RunState.PendingApproval });
    expect(pending.items.map((run) => run.runId)).toEqual(
      expect.arrayContaining([runs[0]?.runId, runs[2]?.runId]),
    );
    expect(pending.items.map((run) => run.runId)).not.toContain(runs[1]?.runId);
    await expect(records.list({ limit: 2, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(
      InvalidCursorError,
    );
  });

  it('pages the rows in row order, from an index when asked, and records what each became', async () => {
    const records = await make();
    const run = runOf({ count: 5 });
    await records.create(run, rowsOf(run).reverse(), 'payroll-5', 'fp');
    const page = await records.rows(run.runId, { limit: 2, fromIndex: 1 });
    expect(page.items.map((row) => row.index)).toEqual([1, 2]);
    const next = await records.rows(run.runId, {
      limit: 10,
      ...(page.nextCursor && { cursor: page.nextCursor }),
    });
    expect(next.items.map((row) => row.index)).toEqual([3, 4]);
    await records.recordRow({ runId: run.runId, index: 1 }, { payoutId: 'PAYOUT-1' });
    await records.recordRow({ runId: run.runId, index: 1 }, { payoutId: 'PAYOUT-1' });
    await records.recordRow({ runId: run.runId, index: 2 }, { failure: { code: 'LIMIT', message: 'above' } });
    const rows = await records.allRows(run.runId);
    expect(rows[1]?.payoutId).toBe('PAYOUT-1');
    expect(rows[2]?.failure).toEqual({ code: 'LIMIT', message: 'above' });
  });

  it('moves a run only from the state and mark it was read in, and records a first approval once', async () => {
    const records = await make();
    const run = runOf();
    await records.create(run, rowsOf(run), 'payroll-6', 'fp');
    const firstApproval = { actor: bola, at: '2026-12-01T10:00:00.000Z' };
    expect(
      await records.transition(run, RunState.PendingApproval, { firstApproval, updatedAt: firstApproval.at }),
    ).toBe(true);
    const again = { actor: { id: 'chidi', kind: 'user' as const }, at: '2026-12-01T10:01:00.000Z' };
    expect(
      await records.transition(run, RunState.PendingApproval, { firstApproval: again, updatedAt: again.at }),
    ).toBe(false);
    expect((await records.get(run.runId))?.firstApproval).toEqual(firstApproval);
    const at = '2026-12-01T10:02:00.000Z';
    expect(
      await records.transition(run, RunState.Materialising, {
        approvedBy: bola,
        approvedAt: at,
        updatedAt: at,
      }),
    ).toBe(true);
    expect(await records.transition(run, RunState.Cancelled, { updatedAt: at })).toBe(false);
    const moved = await records.get(run.runId);
    expect(moved).toMatchObject({ state: RunState.Materialising, approvedBy: bola, approvedAt: at });
    expect(await records.dueForMaterialise(100)).toContain(run.runId);
    expect(
      await records.transition(moved ?? run, RunState.Materialised, { materialised: 2, updatedAt: at }),
    ).toBe(true);
    expect(await records.dueForMaterialise(100)).not.toContain(run.runId);
    expect((await records.get(run.runId))?.materialised).toBe(2);
  });
});
