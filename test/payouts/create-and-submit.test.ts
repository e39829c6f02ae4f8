import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resumePayouts } from '../../lib/payouts/engine/controls.js';
import { createAndSubmit } from '../../lib/payouts/engine/create-and-submit.js';
import { CreationCompanionRefusedError } from '../../lib/payouts/errors.js';
import { type Payout, PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { PayoutStore } from '../../lib/payouts/store/payout-store.js';
import { DocumentClient, GetCommand, PutCommand } from '../../lib/shared/document-client.js';
import { IdempotencyConflictError } from '../../lib/shared/errors.js';
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

/**
 * The API's and events' path (engine/create-and-submit.ts): a payout that can go now is created already
 * claimed, in one transaction with both audit events and the daily-cap reservation, then sent once.
 */
const DAILY_CAP = 1_000_000;
let h: EngineHarness;
let keyCounter = 0;
const key = (label: string) => `cas-${label}-${++keyCounter}`;

beforeAll(async () => {
  h = await startEngineHarness({ dailyCapKobo: DAILY_CAP, maxInstructionKobo: 2 * DAILY_CAP });
});
afterAll(async () => h.close());
beforeEach(async () => {
  h.sandbox.reset();
  await resumePayouts(h.engine.ctx, alice);
});

/** The store, with the calls the engine makes counted; `faults` replace a method for one call each. */
function countingStore(faults: { create?: PayoutStore['create'] } = {}) {
  const calls = { create: 0, transition: 0 };
  let createFault = faults.create;
  const store = new Proxy(h.store, {
    get(target, name) {
      if (name === 'create') {
        return (...args: Parameters<PayoutStore['create']>) => {
          calls.create++;
          const fault = createFault;
          createFault = undefined;
          return fault ? fault(...args) : target.create(...args);
        };
      }
      if (name === 'transition') {
        return (...args: Parameters<PayoutStore['transition']>) => {
          calls.transition++;
          return target.transition(...args);
        };
      }
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, calls };
}

/** A child account of its own per test, so each test has a daily-cap counter of its own. */
function childDebit(amount: number, account: number) {
  const childAccountId = h.fixtures.childAccounts[account]?.id ?? '';
  return {
    request: {
      type: 'child_debit' as const,
      amount,
      currency: 'NGN' as const,
      narration: 'child debit',
      childAccountId,
    },
    capKey: `child:${childAccountId}`,
  };
}

describe('create and submit in one', () => {
  it('writes the payout once before the provider call and sends it once, with the audit of both steps', async () => {
    const { store, calls } = countingStore();
    const engine = h.engineWith({ store });
    const capDay = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
    const capBefore = await h.store.getCapUsage('merchant', capDay);

    const result = await createAndSubmit(engine.ctx, command(bankTransfer(25_000), key('happy')));

    expect(result).toMatchObject({ replayed: false, submitted: { kind: 'sent', outcome: 'succeeded' } });
    expect(result.payout.status).toBe(PayoutStatus.Succeeded);
    // One create (payout already claimed, with its cap reservation) and one transition (the outcome).
    expect(calls).toEqual({ create: 1, transition: 1 });
    const { payout, audit } = await h.getWithAudit(result.payout.id);
    expect(payout).toMatchObject({ status: PayoutStatus.Succeeded, version: 3, submissionCount: 1, capDay });
    expect(audit.map((event) => [event.sequence, event.from, event.to])).toEqual([
      [1, null, 'pending'],
      [2, 'pending', 'submitting'],
      [3, 'submitting', 'succeeded'],
    ]);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    expect(await h.store.getCapUsage('merchant', capDay)).toBe(capBefore + 25_000);
  });

  describe('with a companion (a record that commits with the creation: a settlement decision)', () => {
    const recordKey = (label: string) => ({ pk: `COMPANION#${label}-${++keyCounter}`, sk: 'RECORD' });
    const companionAt = (at: { pk: string; sk: string }) => (payout: Payout) => ({
      items: [
        {
          Put: {
            TableName: h.tableName,
            Item: { ...at, payoutId: payout.id, status: payout.status },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
    const read = async (at: { pk: string; sk: string }) =>
      (
        await DocumentClient.from(h.dynamoDb).send(
          new GetCommand({ TableName: h.tableName, Key: at, ConsistentRead: true }),
        )
      ).Item;

    it('writes it in the creating transaction, naming the payout, created claimed or in two steps', async () => {
      const { store, calls } = countingStore();
      const claimedAt = recordKey('claimed');
      const paid = await createAndSubmit(h.engineWith({ store }).ctx, {
        ...command(bankTransfer(11_000), key('companion-claimed')),
        companion: companionAt(claimedAt),
      });
      expect(paid.payout.status).toBe(PayoutStatus.Succeeded);
      // Written with the payout created already claimed: no write of its own.
      expect(calls).toEqual({ create: 1, transition: 1 });
      expect(await read(claimedAt)).toMatchObject({
        payoutId: paid.payout.id,
        status: PayoutStatus.Submitting,
      });

      const waitingAt = recordKey('two-steps');
      const waiting = await createAndSubmit(h.engine.ctx, {
        ...command(
          {
            ...bankTransfer(12_000),
            scheduleAt: new Date(h.clock.now().getTime() + 3_600_000).toISOString(),
          },
          key('companion-two-steps'),
        ),
        companion: companionAt(waitingAt),
      });
      expect(waiting.payout.status).toBe(PayoutStatus.Scheduled);
      expect(await read(waitingAt)).toMatchObject({ payoutId: waiting.payout.id });
    });

    it('writes none on a replay of the key', async () => {
      const idempotencyKey = key('companion-replay');
      const first = await createAndSubmit(h.engine.ctx, {
        ...command(bankTransfer(13_000), idempotencyKey),
        companion: companionAt(recordKey('first')),
      });
      const replayAt = recordKey('replay');
      const again = await createAndSubmit(h.engine.ctx, {
        ...command(bankTransfer(13_000), idempotencyKey),
        companion: companionAt(replayAt),
      });
      expect(again).toMatchObject({ replayed: true, payout: { id: first.payout.id } });
      expect(await read(replayAt)).toBeUndefined();
      expect(ledgerEntriesOf(h.sandbox, first.payout.id)).toHaveLength(1);
    });

    it('refused (its record exists), fails the create, writing, reserving and sending nothing', async () => {
      const takenAt = recordKey('taken');
      await DocumentClient.from(h.dynamoDb).send(
        new PutCommand({ TableName: h.tableName, Item: { ...takenAt, payoutId: 'decided-before' } }),
      );
      const capDay = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
      const capBefore = await h.store.getCapUsage('merchant', capDay);
      const idempotencyKey = key('companion-refused');

      await expect(
        createAndSubmit(h.engine.ctx, {
          ...command(bankTransfer(14_000), idempotencyKey),
          companion: companionAt(takenAt),
        }),
      ).rejects.toBeInstanceOf(CreationCompanionRefusedError);

      expect(h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0).toBe(0);
      expect(await h.store.getCapUsage('merchant', capDay)).toBe(capBefore);
      expect(await read(takenAt)).toMatchObject({ payoutId: 'decided-before' });
      // The key is still free: the same request without the companion creates a payout.
      const after = await createAndSubmit(h.engine.ctx, command(bankTransfer(14_000), idempotencyKey));
      expect(after.replayed).toBe(false);
    });
  });

  it('replays the same key and body without sending again, and refuses the key with another body', async () => {
    const first = await createAndSubmit(h.engine.ctx, command(bankTransfer(12_000), key('replay')));
    const again = await createAndSubmit(
      h.engine.ctx,
      command(bankTransfer(12_000), first.payout.idempotencyKey),
    );
    expect(again).toMatchObject({ replayed: true, payout: { id: first.payout.id } });
    expect(again.submitted).toBeUndefined();
    await expect(
      createAndSubmit(h.engine.ctx, command(bankTransfer(13_000), first.payout.idempotencyKey)),
    ).rejects.toBeInstanceOf(IdempotencyConflictError);
    expect(ledgerEntriesOf(h.sandbox, first.payout.id)).toHaveLength(1);
  });

  it('fails a payout the day’s cap has no room for, reserving and sending nothing', async () => {
    const { request, capKey } = childDebit(600_000, 1);
    const capDay = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
    const paid = await createAndSubmit(h.engine.ctx, command(request, key('cap-first')));
    expect(paid.payout.status).toBe(PayoutStatus.Succeeded);

    const refused = await createAndSubmit(h.engine.ctx, command(request, key('cap-second')));

    expect(refused.payout).toMatchObject({
      status: PayoutStatus.Failed,
      failure: { code: 'DAILY_CAP_EXCEEDED' },
    });
    expect(ledgerEntriesOf(h.sandbox, refused.payout.id)).toHaveLength(0);
    expect(await h.store.getCapUsage(capKey, capDay)).toBe(600_000);
  });

  it('gives the claim back unsent when payouts are paused, and sends it after the resume', async () => {
    // Paused by another process: this engine learns it from the read after its create-and-claim.
    await h.store.setControls({ paused: true, reason: 'paused elsewhere' });
    const capDay = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
    const capBefore = await h.store.getCapUsage('merchant', capDay);
    const engine = h.engineWith({});

    const result = await createAndSubmit(engine.ctx, command(bankTransfer(18_000), key('paused')));

    expect(result.submitted).toMatchObject({ kind: 'skipped', why: 'payouts are paused' });
    expect(result.payout).toMatchObject({ status: PayoutStatus.Pending, submissionCount: 0 });
    expect(result.payout.nextActionAt).toBeUndefined();
    expect(ledgerEntriesOf(h.sandbox, result.payout.id)).toHaveLength(0);
    expect(await h.store.getCapUsage('merchant', capDay)).toBe(capBefore);

    // Now it knows: the next payout is created pending (held for its creator, the hold lifted) and not claimed.
    const { store, calls } = countingStore();
    const knowing = await createAndSubmit(
      h.engineWith({ store }).ctx,
      command(bankTransfer(9_000), key('known')),
    );
    expect(knowing.payout.status).toBe(PayoutStatus.Pending);
    expect(ledgerEntriesOf(h.sandbox, knowing.payout.id)).toHaveLength(0);
    expect(calls.create).toBe(1);

    await resumePayouts(h.engine.ctx, bob);
    await payoutSweeper(h.engine).sweep();
    for (const payout of [result.payout, knowing.payout]) {
      expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
      expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    }
  });

  it('sends its own payout once when the create-and-claim committed but the SDK retried it', async () => {
    // The answer to the committed transaction was lost and the SDK sent it again: the retry finds the key taken,
    // by our own payout.
    let committed: Payout | undefined;
    const { store, calls } = countingStore({
      async create(payout, audit, claim) {
        await h.store.create(payout, audit, claim);
        committed = payout;
        return h.store.create(payout, audit, claim);
      },
    });
    const engine = h.engineWith({ store });

    const result = await createAndSubmit(engine.ctx, command(bankTransfer(21_000), key('sdk-retry')));

    expect(committed?.status).toBe(PayoutStatus.Submitting);
    expect(result).toMatchObject({ replayed: false, payout: { id: committed?.id, status: 'succeeded' } });
    expect(calls.create).toBe(1);
    expect(ledgerEntriesOf(h.sandbox, result.payout.id)).toHaveLength(1);
    const { audit } = await h.getWithAudit(result.payout.id);
    expect(audit.map((event) => event.to)).toEqual(['pending', 'submitting', 'succeeded']);
  });

  it('leaves a payout that waits for approval or its time unclaimed, as the two steps do', async () => {
    const scheduleAt = new Date(h.clock.now().getTime() + 3_600_000).toISOString();
    const later = await createAndSubmit(
      h.engine.ctx,
      command(bankTransfer(15_000, { scheduleAt }), key('later')),
    );
    expect(later.payout.status).toBe(PayoutStatus.Scheduled);
    expect(later.submitted).toBeUndefined();
    expect(ledgerEntriesOf(h.sandbox, later.payout.id)).toHaveLength(0);
  });
});
