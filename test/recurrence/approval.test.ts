import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalForbiddenError, systemPrincipal } from '../../lib/controls/index.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { approvePayout } from '../../lib/payouts/engine/payout-commands.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { RecurrenceStatus } from '../../lib/recurrence/model.js';
import { RecurrenceService } from '../../lib/recurrence/recurrence-service.js';
import { ValidationError } from '../../lib/shared/errors.js';
import { alice, bob, ledgerEntriesOf } from '../support/engine-harness.js';
import { dailyRule, type RecurrenceHarness, startRecurrenceHarness } from './support.js';

let h: RecurrenceHarness;
beforeAll(async () => {
  h = await startRecurrenceHarness();
});
afterAll(async () => h.close());
afterEach(async () => {
  for (const status of [RecurrenceStatus.Active, RecurrenceStatus.PendingApproval]) {
    const { items } = await h.recurrences.list({ status, limit: 100 });
    for (const r of items) await h.recurrences.cancel(r.id, alice);
  }
});

const at = (iso: string) => h.clock.set(iso);
/** 1,500,000.00 naira: above the approval threshold, below the maximum (the amount of the report). */
const LARGE = 150_000_000;

async function occurrencePayout(recurrenceId: string) {
  const [entry] = (await h.recurrences.view(recurrenceId)).history;
  return h.engine.get(entry?.payoutId ?? '');
}

describe('recurring payouts under four eyes', () => {
  it('refuses to let the creator approve their own rule or its occurrence, and pays it once a second person approved', async () => {
    at('2026-05-01T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-05-01', amount: LARGE, narration: 'large rule' }),
      idempotencyKey: 'large-rule',
      actor: alice,
    });
    expect(recurrence.status).toBe(RecurrenceStatus.PendingApproval);
    await expect(h.recurrences.approve(recurrence.id, alice)).rejects.toBeInstanceOf(ApprovalForbiddenError);
    await expect(h.recurrences.approve(recurrence.id, { id: ' Alice', kind: 'user' })).rejects.toBeInstanceOf(
      ApprovalForbiddenError,
    );
    at('2026-05-01T08:55:00.000Z');
    expect((await h.tick()).recurrences.materialised).toBe(0);

    const approved = await h.recurrences.approve(recurrence.id, bob);
    expect(approved).toMatchObject({ status: RecurrenceStatus.Active, approvedBy: bob });
    await h.tick();
    const scheduled = await occurrencePayout(recurrence.id);
    expect(scheduled).toMatchObject({ requestedBy: alice, approvedBy: bob, status: PayoutStatus.Scheduled });
    // The occurrence was requested by alice: she cannot approve it either (it needs no approval: bob gave it).
    await expect(approvePayout(h.engine.ctx, scheduled?.id ?? '', alice)).rejects.toThrow();

    at('2026-05-01T09:00:00.000Z');
    await h.tick();
    const paid = await occurrencePayout(recurrence.id);
    expect(paid?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, paid?.id ?? '')).toHaveLength(1);
  });

  it('refuses the creator approving an occurrence of a rule made before the threshold was lowered, and a person other than the creator may', async () => {
    at('2026-05-03T08:00:00.000Z');
    // The same table and engine, with the limits the stage had when the rule was created.
    const before = new RecurrenceService({
      ...h.recurrences.ctx,
      limits: { ...defaultEngineConfig, approvalThresholdKobo: LARGE + 1 },
    });
    const { recurrence } = await before.create({
      request: dailyRule({ startDate: '2026-05-03', amount: LARGE, narration: 'old rule' }),
      idempotencyKey: 'old-rule',
      actor: alice,
    });
    expect(recurrence.status).toBe(RecurrenceStatus.Active);
    at('2026-05-03T08:55:00.000Z');
    await h.tick();
    at('2026-05-03T09:00:00.000Z');
    await h.tick();
    const waiting = await occurrencePayout(recurrence.id);
    expect(waiting).toMatchObject({ status: PayoutStatus.PendingApproval, requestedBy: alice });
    expect(waiting?.approvedBy).toBeUndefined();

    await expect(approvePayout(h.engine.ctx, waiting?.id ?? '', alice)).rejects.toBeInstanceOf(
      ApprovalForbiddenError,
    );
    await expect(
      approvePayout(h.engine.ctx, waiting?.id ?? '', systemPrincipal('recurrence')),
    ).rejects.toBeInstanceOf(ApprovalForbiddenError);
    expect((await occurrencePayout(recurrence.id))?.status).toBe(PayoutStatus.PendingApproval);
    expect(ledgerEntriesOf(h.sandbox, waiting?.id ?? '')).toHaveLength(0);

    await approvePayout(h.engine.ctx, waiting?.id ?? '', bob);
    await h.tick();
    expect((await occurrencePayout(recurrence.id))?.status).toBe(PayoutStatus.Succeeded);
  });

  it('lets no system principal approve a rule', async () => {
    at('2026-05-05T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-05-06', amount: LARGE, narration: 'system approver' }),
      idempotencyKey: 'system-approver',
      actor: alice,
    });
    for (const system of ['recurrence', 'scheduler', 'events']) {
      await expect(h.recurrences.approve(recurrence.id, systemPrincipal(system))).rejects.toBeInstanceOf(
        ApprovalForbiddenError,
      );
    }
    expect((await h.recurrences.get(recurrence.id)).status).toBe(RecurrenceStatus.PendingApproval);
    expect((await h.recurrences.view(recurrence.id)).audit.map((e) => e.action)).toEqual(['created']);
  });

  it('records the occurrences that fell while the rule waited for approval as skipped, and pays from the next one', async () => {
    at('2026-05-07T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-05-07', amount: LARGE, narration: 'late approval' }),
      idempotencyKey: 'late-approval',
      actor: alice,
    });
    at('2026-05-08T12:00:00.000Z');
    await h.tick();
    const approved = await h.recurrences.approve(recurrence.id, bob);
    expect(approved.nextLocalDate).toBe('2026-05-09');
    const history = (await h.recurrences.view(recurrence.id)).history;
    expect(history.map((entry) => [entry.localDate, entry.state, entry.reason])).toEqual([
      ['2026-05-08', 'skipped', 'fell before the rule was approved; approved by bob'],
      ['2026-05-07', 'skipped', 'fell before the rule was approved; approved by bob'],
    ]);
  });

  it('refuses a rule above the per-payout maximum and stores nothing', async () => {
    at('2026-05-09T13:00:00.000Z');
    const refused = h.recurrences.create({
      request: dailyRule({ startDate: '2026-05-10', amount: defaultEngineConfig.maxInstructionKobo + 1 }),
      idempotencyKey: 'too-much',
      actor: alice,
    });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({ issues: [{ path: 'amount' }] });
    const all = await h.recurrences.list({ limit: 100 });
    expect(all.items.some((r) => r.idempotencyKey === 'too-much')).toBe(false);
  });
});
