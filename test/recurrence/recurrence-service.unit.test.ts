import { describe, expect, it } from 'vitest';
import { ApprovalForbiddenError } from '../../lib/controls/index.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { type Payout, PayoutStatus } from '../../lib/payouts/model.js';
import type { PayoutPort } from '../../lib/recurrence/context.js';
import {
  type CommandAuditEvent,
  OccurrenceState,
  type Recurrence,
  type RecurrenceAuditEvent,
  RecurrenceStatus,
} from '../../lib/recurrence/model.js';
import { RecurrenceService } from '../../lib/recurrence/recurrence-service.js';
import type { CreateRecurrenceRequest } from '../../lib/recurrence/schemas.js';
import { InMemoryRecurrenceStore } from '../../lib/recurrence/store/in-memory-recurrence-store.js';
import { ManualClock } from '../../lib/shared/clock.js';
import {
  IdempotencyConflictError,
  InvalidTransitionError,
  ValidationError,
} from '../../lib/shared/errors.js';

/**
 * The recurrence service's creation, commands and reads against its store's port in memory (InMemoryRecurrenceStore)
 * and a payout port in memory: the gate at creation, idempotent replay, four eyes, pause and resume, skip, cancel,
 * and the retry of a command whose write lost to the sweeper. The sweep, whose payouts commit their occurrence's
 * record in the payout's own transaction, and the store itself are tested against DynamoDB Local (the other files
 * of this folder).
 */
const alice = { id: 'alice', kind: 'user' } as const;
const bob = { id: 'bob', kind: 'user' } as const;

/** Payouts by id and status, as the recurrence module sees them through its port. */
function payoutsInMemory() {
  const statuses = new Map<string, PayoutStatus>();
  const port: PayoutPort = {
    create: () => Promise.reject(new Error('these tests create no payout')),
    async cancel(id) {
      statuses.set(id, PayoutStatus.Cancelled);
      return { id, status: PayoutStatus.Cancelled } as unknown as Payout;
    },
    async get(id) {
      const status = statuses.get(id);
      return status && ({ id, status } as unknown as Payout);
    },
  };
  return { port, statuses };
}

function fresh(store = new InMemoryRecurrenceStore()) {
  const clock = new ManualClock('2026-03-02T08:00:00.000Z'); // 09:00 in Lagos
  const payouts = payoutsInMemory();
  const service = new RecurrenceService({
    store,
    payouts: payouts.port,
    limits: { ...defaultEngineConfig, approvalThresholdKobo: 1_000_000, maxInstructionKobo: 5_000_000 },
    clock,
  });
  return { clock, store, payouts, service };
}
let keys = 0;
/** A daily bank transfer at 10:00 Lagos time (09:00Z) from 2 March 2026. */
const dailyRule = (overrides: Partial<CreateRecurrenceRequest> = {}): CreateRecurrenceRequest =>
  ({
    type: 'bank_transfer',
    amount: 45_000,
    currency: 'NGN',
    narration: 'staff allowance',
    beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Staff' },
    interval: 'daily',
    startDate: '2026-03-02',
    timeOfDay: '10:00',
    ...overrides,
  }) as CreateRecurrenceRequest;
const create = (service: RecurrenceService, request = dailyRule(), actor = alice) =>
  service.create({ request, idempotencyKey: `rule-${++keys}`, actor });

describe('creating a rule', () => {
  it('starts an active rule at its first occurrence from now, once per idempotency key', async () => {
    const { service } = fresh();
    const request = dailyRule();
    const { recurrence, replayed } = await service.create({ request, idempotencyKey: 'rent', actor: alice });
    expect([recurrence.status, replayed]).toEqual([RecurrenceStatus.Active, false]);
    expect(recurrence).toMatchObject({
      nextLocalDate: '2026-03-02',
      nextOccurrenceAt: '2026-03-02T09:00:00.000Z',
    });
    expect(await service.create({ request, idempotencyKey: 'rent', actor: alice })).toEqual({
      recurrence,
      replayed: true,
    });
    await expect(
      service.create({ request: dailyRule({ amount: 46_000 }), idempotencyKey: 'rent', actor: alice }),
    ).rejects.toBeInstanceOf(IdempotencyConflictError);
    expect((await service.list({ limit: 10 })).items).toHaveLength(1);
  });

  it('refuses a rule above the per-payout maximum naming amount, and stores nothing', async () => {
    const { service } = fresh();
    const above = create(service, dailyRule({ amount: 5_000_001 }));
    await expect(above).rejects.toBeInstanceOf(ValidationError);
    await expect(above).rejects.toMatchObject({ issues: [{ path: 'amount' }] });
    expect((await service.list({ limit: 10 })).items).toEqual([]);
  });
});

describe('four eyes', () => {
  it('keeps a rule at the threshold waiting for another person, and skips what fell while it waited', async () => {
    const { service, clock } = fresh();
    const { recurrence } = await create(service, dailyRule({ amount: 1_000_000 }));
    expect(recurrence.status).toBe(RecurrenceStatus.PendingApproval);
    await expect(service.approve(recurrence.id, alice)).rejects.toBeInstanceOf(ApprovalForbiddenError);
    await expect(
      service.approve(recurrence.id, { id: 'system:recurrence', kind: 'system' }),
    ).rejects.toBeInstanceOf(ApprovalForbiddenError);
    clock.set('2026-03-04T08:00:00.000Z'); // two occurrences passed while it waited
    const approved = await service.approve(recurrence.id, bob);
    expect(approved).toMatchObject({
      status: RecurrenceStatus.Active,
      approvedBy: bob,
      nextLocalDate: '2026-03-04',
    });
    const { history, audit } = await service.view(recurrence.id);
    expect(history.map((entry) => [entry.localDate, entry.state])).toEqual([
      ['2026-03-03', OccurrenceState.Skipped],
      ['2026-03-02', OccurrenceState.Skipped],
    ]);
    expect(audit.map((event) => [event.action, event.actor.id, event.committed])).toEqual([
      ['created', 'alice', true],
      ['approved', 'bob', true],
    ]);
  });
});

describe('the commands', () => {
  it('holds a scheduled occurrence when paused, cancelling its payout, and skips it when resumed after its time', async () => {
    const { service, store, payouts, clock } = fresh();
    const { recurrence } = await create(service);
    payouts.statuses.set('PAYOUT-1', PayoutStatus.Scheduled);
    await store.recordMaterialised({
      recurrenceId: recurrence.id,
      localDate: '2026-03-02',
      index: recurrence.nextIndex,
      at: '2026-03-02T09:00:00.000Z',
      state: OccurrenceState.Materialised,
      payoutId: 'PAYOUT-1',
      recordedAt: clock.now().toISOString(),
    });
    const paused = await service.pause(recurrence.id, bob, 'budget review');
    expect(paused).toMatchObject({ status: RecurrenceStatus.Paused, statusReason: 'budget review' });
    expect(payouts.statuses.get('PAYOUT-1')).toBe(PayoutStatus.Cancelled);
    expect(await store.getOccurrence(recurrence.id, '2026-03-02')).toMatchObject({
      state: OccurrenceState.Held,
    });

    clock.set('2026-03-02T12:00:00.000Z');
    const resumed = await service.resume(recurrence.id, bob);
    expect(resumed).toMatchObject({ status: RecurrenceStatus.Active, nextLocalDate: '2026-03-03' });
    expect(await store.getOccurrence(recurrence.id, '2026-03-02')).toMatchObject({
      state: OccurrenceState.Skipped,
    });
    await expect(service.resume(recurrence.id, bob)).rejects.toBeInstanceOf(InvalidTransitionError);
  });

  it('skips a named occurrence ahead once: a second skip changes and audits nothing', async () => {
    const { service } = fresh();
    const { recurrence } = await create(service);
    const skipped = await service.skip(recurrence.id, '2026-03-05', bob, 'public holiday');
    expect(skipped.skippedDates).toEqual(['2026-03-05']);
    const again = await service.skip(recurrence.id, '2026-03-05', bob);
    expect(again.version).toBe(skipped.version);
    const { upcoming, audit } = await service.view(recurrence.id);
    expect(upcoming.find((occurrence) => occurrence.localDate === '2026-03-05')?.skipped).toBe(true);
    expect(audit.filter((event) => event.action === 'skipped')).toHaveLength(1);
    await expect(service.skip(recurrence.id, '2026-13-01', bob)).rejects.toBeInstanceOf(ValidationError);
  });

  it('ends a rule for good on cancel: no later command applies', async () => {
    const { service } = fresh();
    const { recurrence } = await create(service);
    expect(await service.cancel(recurrence.id, bob)).toMatchObject({ status: RecurrenceStatus.Cancelled });
    await expect(service.pause(recurrence.id, bob)).rejects.toBeInstanceOf(InvalidTransitionError);
    await expect(service.cancel(recurrence.id, bob)).rejects.toBeInstanceOf(InvalidTransitionError);
  });

  it('reads the rule again and applies the command once when its write lost to the sweeper', async () => {
    /** The sweeper advances the rule between the command's read and its write, once. */
    class RacedStore extends InMemoryRecurrenceStore {
      raced = false;
      override async replace(
        before: Recurrence,
        after: Recurrence,
        audit?: RecurrenceAuditEvent | CommandAuditEvent,
      ): Promise<Recurrence> {
        if (!this.raced) {
          this.raced = true;
          await super.replace(before, { ...before, version: before.version + 1 });
        }
        return super.replace(before, after, audit);
      }
    }
    const store = new RacedStore();
    const { service } = fresh(store);
    const { recurrence } = await create(service);
    const paused = await service.pause(recurrence.id, bob);
    expect(store.raced).toBe(true);
    expect(paused).toMatchObject({ status: RecurrenceStatus.Paused, version: recurrence.version + 2 });
    const { audit } = await service.view(recurrence.id);
    expect(audit.filter((event) => event.action === 'paused')).toHaveLength(1);
  });
});
