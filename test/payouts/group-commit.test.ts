import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DailyCapExceededError, systemPrincipal } from '../../lib/controls/index.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { buildTransition } from '../../lib/payouts/engine/context.js';
import { resumePayouts } from '../../lib/payouts/engine/controls.js';
import { type Payout, PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { DynamoDbPayoutStore } from '../../lib/payouts/store/dynamodb-payout-store.js';
import { createDynamoDbClient } from '../../lib/shared/dynamodb-client.js';
import { ConcurrentModificationError } from '../../lib/shared/errors.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import {
  alice,
  bankTransfer,
  command,
  type EngineHarness,
  ledgerEntriesOf,
  startEngineHarness,
} from '../support/engine-harness.js';

/**
 * The store's group commit against DynamoDB Local: transitions asked for in the same turn share one
 * TransactWriteItems, and each still gets exactly the answer it would have had alone.
 */
const DAILY_CAP = 1_000_000;
let h: EngineHarness;
let keyCounter = 0;
const actor = systemPrincipal('test');

beforeAll(async () => {
  h = await startEngineHarness({ dailyCapKobo: DAILY_CAP });
});
afterAll(async () => h.close());

/** Bank transfers all count against the merchant wallet's one daily-cap counter. */
async function pendingPayouts(count: number, amountKobo: number): Promise<Payout[]> {
  const payouts: Payout[] = [];
  for (let i = 0; i < count; i++) {
    payouts.push((await h.engine.create(command(bankTransfer(amountKobo), `group-${++keyCounter}`))).payout);
  }
  return payouts;
}

const cancel = (payout: Payout) =>
  buildTransition(payout, { to: PayoutStatus.Cancelled, actor, reason: 'test cancel' }, h.clock.now());

const claim = (payout: Payout) => {
  const now = h.clock.now();
  const day = calendarDayIn(h.engine.ctx.config.capTimeZone, now);
  return buildTransition(
    payout,
    {
      to: PayoutStatus.Submitting,
      actor,
      reason: 'test claim',
      changes: { capDay: day, submissionCount: payout.submissionCount + 1 },
      cap: { capKey: payout.capKey, day, deltaKobo: payout.amountKobo, limitKobo: DAILY_CAP },
    },
    now,
  );
};

describe('group commit in the payout store', () => {
  it('commits what it can and refuses only the transition whose own condition failed', async () => {
    const [first, stale, third] = (await pendingPayouts(3, 10_000)) as [Payout, Payout, Payout];
    await h.store.transition(cancel(stale)); // someone else moved it first
    const results = await Promise.allSettled([
      h.store.transition(cancel(first)),
      h.store.transition(cancel(stale)),
      h.store.transition(cancel(third)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrentModificationError);
    for (const payout of [first, stale, third]) {
      const after = await h.getWithAudit(payout.id);
      expect(after.payout.status).toBe(PayoutStatus.Cancelled);
      expect(after.audit.map((event) => event.to)).toEqual(['pending', 'cancelled']);
    }
  });

  it('admits exactly the claims that fit under the daily cap when their sum does not', async () => {
    const payouts = await pendingPayouts(3, 400_000);
    const capKey = payouts[0]?.capKey ?? '';
    const day = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
    // The first claims on today's counter: none of it is used yet.
    expect(await h.store.getCapUsage(capKey, day)).toBe(0);
    const results = await Promise.allSettled(payouts.map((payout) => h.store.transition(claim(payout))));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(DailyCapExceededError);
    expect(await h.store.getCapUsage(capKey, day)).toBe(800_000);
    expect((await h.engine.get(payouts[2]?.id ?? ''))?.status).toBe(PayoutStatus.Pending);
  });

  it('claims together under one cap update for their sum', async () => {
    const payouts = await pendingPayouts(4, 50_000);
    const capKey = payouts[0]?.capKey ?? '';
    const day = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
    const before = await h.store.getCapUsage(capKey, day);
    // A store of its own over the same table, on a client that counts its transactions.
    const client = createDynamoDbClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
    let transactions = 0;
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'TransactWriteItemsCommand') transactions++;
        return next(args);
      },
      { step: 'initialize', name: 'countTransactions' },
    );
    try {
      const store = new DynamoDbPayoutStore(client, h.tableName);
      const claimed = await Promise.all(payouts.map((payout) => store.transition(claim(payout))));
      expect(claimed.map((payout) => payout.status)).toEqual(Array(4).fill(PayoutStatus.Submitting));
      expect(transactions).toBe(1);
      expect(await h.store.getCapUsage(capKey, day)).toBe(before + 200_000);
    } finally {
      client.destroy();
    }
  });

  it('sends none of a batch of claims while payouts are paused, and gives every claim back', async () => {
    // The store's claims no longer carry the pause check (2 write units each): the engine reads the pause once
    // a claim committed (submit-payout.ts, `pausedNow`), so a sweep's group-committed claims all meet a pause set by
    // another process before them, and none of their payouts reaches the provider.
    const payouts = await pendingPayouts(3, 10_000);
    const capKey = payouts[0]?.capKey ?? '';
    const day = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
    const capBefore = await h.store.getCapUsage(capKey, day);
    await h.store.setControls({ paused: true, reason: 'test pause' });
    const sweeper = h.engineWith({});
    try {
      const report = await payoutSweeper(sweeper).sweep({ limit: 50, concurrency: 3 });
      expect(report.submitted).toBe(0);
      for (const payout of payouts) {
        expect(await h.engine.get(payout.id)).toMatchObject({
          status: PayoutStatus.Pending,
          submissionCount: 0,
        });
        expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
      }
      expect(await h.store.getCapUsage(capKey, day)).toBe(capBefore);
    } finally {
      await resumePayouts(h.engine.ctx, alice, 'test over');
    }
  });
});
