import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkCorrectionLimits } from '../../lib/bulk-corrections/correction-context.js';
import { BulkCorrectionService } from '../../lib/bulk-corrections/correction-service.js';
import { InMemoryBulkItemStore } from '../../lib/bulk-corrections/store/in-memory-bulk-item-store.js';
import { MAIN_WALLET_CAP_COUNTER } from '../../lib/controls/gate.js';
import { ApprovalForbiddenError } from '../../lib/controls/index.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { ConcurrentModificationError, InvalidTransitionError } from '../../lib/shared/errors.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';

/**
 * The bulk correction service against its store's port in memory (InMemoryBulkItemStore) and the provider sandbox:
 * admission by the gate, four eyes, the pause and the daily cap, a correction sent once, the outcome-unknown path.
 * The table's own rules are tested against DynamoDB Local (the other files of this folder).
 */
const PATCH_PATH = '/payout/bulk/item';
const alice = { id: 'alice', kind: 'user' } as const;
const bob = { id: 'bob', kind: 'user' } as const;
const carol = { id: 'carol', kind: 'user' } as const;
let sandbox: Sandbox;
let client: ProviderClient;
let validIds: string[] = [];
let invalidIds: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  client = new ProviderClient({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
  });
  const items = sandbox.fixtures().bulkPayoutItems;
  validIds = items.filter((item) => item.isValid).map((item) => item.id);
  invalidIds = items.filter((item) => !item.isValid).map((item) => item.id);
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

function fresh(limits: Partial<BulkCorrectionLimits> = {}) {
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  const store = new InMemoryBulkItemStore();
  const controls = { paused: false };
  const service = new BulkCorrectionService({
    store,
    provider: client,
    limits: { ...defaultEngineConfig, ...limits },
    controls: async () => controls,
    clock,
  });
  const capTotal = () =>
    store.controls.capTotal(
      MAIN_WALLET_CAP_COUNTER,
      calendarDayIn(defaultEngineConfig.capTimeZone, clock.now()),
    );
  return { clock, store, controls, service, capTotal };
}
const patches = () => sandbox.stats().requests[PATCH_PATH] ?? 0;

describe('admitting a correction', () => {
  it('refuses a body that is no correction, and an amount above the maximum, sending nothing', async () => {
    const { service } = fresh({ maxInstructionKobo: 1_000_000 });
    const before = patches();
    expect(await service.correct(validIds[0] ?? '', { accountNumber: 'twelve' }, alice)).toMatchObject({
      outcome: 'invalid',
    });
    const above = await service.correct(validIds[0] ?? '', { amount: 1_000_001 }, alice);
    expect(above).toMatchObject({ outcome: 'invalid', issues: [{ path: 'amount' }] });
    expect(patches()).toBe(before);
  });

  it("sends a correction below the threshold, records the provider's verdict and audits who changed what", async () => {
    const { service, capTotal } = fresh();
    const id = invalidIds[0] ?? '';
    const result = await service.correct(id, { narration: 'June salaries' }, alice);
    expect(result.outcome).toBe('still_invalid');
    const { item, audit } = await service.get(id);
    expect(item).toMatchObject({ version: 1, values: { narration: 'June salaries' } });
    expect(audit).toEqual([
      expect.objectContaining({
        actor: alice,
        outcome: 'still_invalid',
        changes: [{ field: 'narration', from: null, fromKnown: false, to: 'June salaries' }],
      }),
    ]);
    // A narration alone puts nothing at stake: nothing reserved.
    expect(capTotal()).toBe(0);
    await service.correct(id, { narration: 'July salaries' }, alice);
    expect((await service.get(id)).item.version).toBe(2);
  });
});

describe('four eyes', () => {
  it('holds an amount at the threshold for another person, sends it once when two approve at once', async () => {
    const { service, capTotal } = fresh({ approvalThresholdKobo: 500_000 });
    const id = validIds[1] ?? '';
    const before = patches();
    const held = await service.correct(id, { amount: 500_000 }, alice);
    if (held.outcome !== 'pending_approval')
      throw new Error(`expected a held correction, got ${held.outcome}`);
    const { correctionId } = held.correction;
    await expect(service.approve(id, correctionId, alice)).rejects.toBeInstanceOf(ApprovalForbiddenError);
    const approvals = await Promise.allSettled([
      service.approve(id, correctionId, bob),
      service.approve(id, correctionId, carol),
    ]);
    expect(approvals.filter((approval) => approval.status === 'fulfilled')).toHaveLength(1);
    expect(patches()).toBe(before + 1);
    expect(capTotal()).toBe(500_000);
    expect(await service.listCorrections({ status: 'approved', limit: 10 })).toMatchObject({
      items: [{ correctionId, outcome: 'corrected' }],
    });
  });

  it('withdraws a held correction for good: it is never sent, and cannot be approved after', async () => {
    const { service } = fresh({ approvalThresholdKobo: 500_000 });
    const id = validIds[2] ?? '';
    const held = await service.correct(id, { amount: 600_000 }, alice);
    if (held.outcome !== 'pending_approval')
      throw new Error(`expected a held correction, got ${held.outcome}`);
    const before = patches();
    const cancelled = await service.cancel(id, held.correction.correctionId, alice, 'wrong item');
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelledBy: alice, cancelReason: 'wrong item' });
    await expect(service.approve(id, held.correction.correctionId, bob)).rejects.toBeInstanceOf(
      InvalidTransitionError,
    );
    expect(patches()).toBe(before);
  });
});

describe('the controls of a send', () => {
  it('sends nothing while payouts are paused, and holds nothing', async () => {
    const { service, controls } = fresh({ approvalThresholdKobo: 500_000 });
    controls.paused = true;
    const before = patches();
    expect(await service.correct(validIds[0] ?? '', { amount: 100_000 }, alice)).toMatchObject({
      outcome: 'paused',
      failure: { code: 'PAYOUTS_PAUSED' },
    });
    expect(await service.correct(validIds[0] ?? '', { amount: 600_000 }, alice)).toMatchObject({
      outcome: 'paused',
    });
    expect((await service.listCorrections({ limit: 10 })).items).toEqual([]);
    expect(patches()).toBe(before);
  });

  it('refuses a correction past the daily cap without sending it, and gives back what the provider refused', async () => {
    const { service, capTotal } = fresh({ dailyCapKobo: 500_000 });
    await service.correct(validIds[0] ?? '', { amount: 300_000 }, alice);
    expect(capTotal()).toBe(300_000);
    const before = patches();
    expect(await service.correct(validIds[1] ?? '', { amount: 300_000 }, alice)).toMatchObject({
      outcome: 'cap_exceeded',
      failure: { code: 'DAILY_CAP_EXCEEDED' },
    });
    expect(patches()).toBe(before);
    expect(await service.correct('no-such-item', { amount: 100_000 }, alice)).toMatchObject({
      outcome: 'provider_rejected',
    });
    expect(capTotal()).toBe(300_000);
  });

  it('sends one correction of an item at a time: the second of two at once is refused, nothing sent for it', async () => {
    const { service } = fresh();
    const before = patches();
    const results = await Promise.allSettled([
      service.correct(validIds[3] ?? '', { narration: 'once' }, alice),
      service.correct(validIds[3] ?? '', { narration: 'once' }, alice),
    ]);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect(refused[0]?.status === 'rejected' && refused[0].reason).toBeInstanceOf(
      ConcurrentModificationError,
    );
    expect(patches()).toBe(before + 1);
  });
});

describe('a correction whose outcome is unknown', () => {
  it('is audited as unknown and keeps its reservation: the provider may have applied it', async () => {
    const { service, store, capTotal } = fresh();
    const id = validIds[0] ?? '';
    sandbox.injectFault({ path: PATCH_PATH, fault: 'error-500-after-commit' });
    const result = await service.correct(id, { amount: 200_000 }, alice);
    expect(result.outcome).toBe('unknown');
    expect(capTotal()).toBe(200_000);
    expect(await store.audit(id)).toEqual([expect.objectContaining({ outcome: 'unknown', actor: alice })]);
    // No verdict of the provider to record: the item's state is not written.
    expect(await store.get(id)).toBeUndefined();
  });
});
