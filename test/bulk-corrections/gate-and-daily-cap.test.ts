import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BulkCorrectionService } from '../../lib/bulk-corrections/correction-service.js';
import { DynamoDbBulkItemStore } from '../../lib/bulk-corrections/store/dynamodb-bulk-item-store.js';
import { MAIN_WALLET_CAP_COUNTER } from '../../lib/controls/gate.js';
import { pausePayouts, resumePayouts } from '../../lib/payouts/engine/controls.js';
import type { Controls } from '../../lib/payouts/model.js';
import { capShardTotals, MAX_CAP_SHARDS, useCapShards } from '../../lib/payouts/store/control-items.js';
import type { ProviderClient } from '../../lib/provider/client.js';
import { BulkPayouts } from '../../lib/provider/resources/bulk-payouts.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { providerConnectionOf } from '../../lib/runtime/provider-connection.js';
import { DocumentClient, GetCommand } from '../../lib/shared/document-client.js';
import { ConcurrentModificationError } from '../../lib/shared/errors.js';
import { silentLogger } from '../../lib/shared/logger.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import { keys } from '../../lib/table/index.js';
import { call } from '../api/support/harness.js';
import { type JobsHarness, PATCH_PATH, startJobsHarness } from './support.js';

const ops = { id: 'ops', kind: 'user' } as const;
const alice = { id: 'alice', kind: 'user' } as const;

/** 9,999 NGN, just below an approval threshold and a maximum of 10,000 NGN. */
const NEARLY_TEN_THOUSAND_NAIRA = 999_900;
/** The approval threshold and the per-payout maximum of these tests: 10,000 NGN. */
const TEN_THOUSAND_NAIRA = '1000000';

/** The harness's API, sandbox and main wallet's cap counter for today, and its bulk items by validity. */
function harnessOf(env: Record<string, string>) {
  const state: { h?: JobsHarness; validIds: string[]; invalidIds: string[] } = {
    validIds: [],
    invalidIds: [],
  };
  beforeAll(async () => {
    state.h = await startJobsHarness(0, env);
    const items = state.h.sandbox.fixtures().bulkPayoutItems;
    state.validIds = items.filter((item) => item.isValid).map((item) => item.id);
    state.invalidIds = items.filter((item) => !item.isValid).map((item) => item.id);
  });
  afterAll(async () => state.h?.close());
  const h = () => state.h as JobsHarness;
  return {
    h,
    valid: (index: number) => state.validIds[index] ?? '',
    invalid: (index: number) => state.invalidIds[index] ?? '',
    patchCount: () => h().sandbox.stats().requests[PATCH_PATH] ?? 0,
    patch: (id: string, body: Record<string, unknown>, principal = 'alice') =>
      call(h().api, { method: 'PATCH', path: `/bulk-payout-items/${id}`, principal, body }),
    approve: (id: string, correctionId: string, principal: string) =>
      call(h().api, {
        method: 'POST',
        path: `/bulk-payout-items/${id}/corrections/${correctionId}/approve`,
        principal,
      }),
    /** What the day's counter of the main wallet holds, in kobo (what payouts, refunds and corrections reserved). */
    async capTotal(): Promise<number> {
      const ctx = payoutEngineOf(h().runtime).ctx;
      const day = calendarDayIn(ctx.config.capTimeZone, ctx.clock.now());
      const { Item } = await DocumentClient.from(h().runtime.dynamoDb).send(
        new GetCommand({
          TableName: h().runtime.tableName,
          Key: keys.dailyCap(MAIN_WALLET_CAP_COUNTER, day),
          ConsistentRead: true,
        }),
      );
      return typeof Item?.totalKobo === 'number' ? Item.totalKobo : 0;
    },
    /** The correction service as the runtime composes it, with its own pause read and provider. */
    service(options: {
      controls?: () => Promise<Controls>;
      provider?: Pick<ProviderClient, 'bulkPayouts'>;
    }): BulkCorrectionService {
      const ctx = payoutEngineOf(h().runtime).ctx;
      return new BulkCorrectionService({
        store: new DynamoDbBulkItemStore(h().runtime.dynamoDb, h().runtime.tableName),
        provider: options.provider ?? {
          bulkPayouts: new BulkPayouts(providerConnectionOf(h().runtime).requester),
        },
        limits: ctx.config,
        controls: options.controls ?? (() => ctx.store.getControls()),
        clock: ctx.clock,
        logger: silentLogger,
      });
    },
  };
}

describe("bulk corrections count against the main wallet's daily cap", () => {
  // Threshold and maximum 10,000 NGN, as measured on main; a cap of 50,000 NGN that five such corrections fit in.
  const t = harnessOf({
    MAX_PAYOUT_KOBO: TEN_THOUSAND_NAIRA,
    APPROVAL_THRESHOLD_KOBO: TEN_THOUSAND_NAIRA,
    DAILY_CAP_KOBO: '5000000',
  });

  it("refuses the sixth 9,999 NGN correction past a 50,000 NGN daily cap: corrections count against the main wallet's cap", async () => {
    const before = t.patchCount();
    for (let n = 0; n < 5; n++) {
      const sent = await t.patch(t.valid(n % 4), { amount: NEARLY_TEN_THOUSAND_NAIRA });
      expect(sent.status, `correction ${n + 1}`).toBe(200);
      expect(sent.body.outcome).toBe('corrected');
    }
    expect(await t.capTotal()).toBe(5 * NEARLY_TEN_THOUSAND_NAIRA);
    const sixth = await t.patch(t.valid(0), { amount: NEARLY_TEN_THOUSAND_NAIRA });
    expect(sixth.status).toBe(409);
    expect(sixth.body.type).toContain('daily-cap-exceeded');
    expect(t.patchCount()).toBe(before + 5);
    expect(await t.capTotal()).toBe(5 * NEARLY_TEN_THOUSAND_NAIRA);

    // A job row past the cap ends cap_exceeded, nothing sent.
    const accepted = await call(t.h().api, {
      method: 'POST',
      path: '/bulk-payout-items/corrections',
      principal: 'alice',
      body: { corrections: [{ bulkPayoutItemId: t.valid(1), amount: NEARLY_TEN_THOUSAND_NAIRA }] },
    });
    expect(accepted.status).toBe(202);
    await t.h().drain();
    const rows = await call(t.h().api, { method: 'GET', path: `${accepted.headers.location}/items` });
    expect(rows.body.items).toMatchObject([
      { status: 'cap_exceeded', failure: { code: 'DAILY_CAP_EXCEEDED' } },
    ]);

    // An approval past the cap is refused too: the correction keeps waiting, nothing sent or reserved.
    const held = await t.patch(t.valid(2), { accountNumber: '0123456780', amount: 500_000 });
    expect(held.status).toBe(202);
    const approval = await t.approve(t.valid(2), held.body.correction.correctionId, 'bob');
    expect(approval.status).toBe(409);
    expect(approval.body.type).toContain('daily-cap-exceeded');
    const item = await call(t.h().api, { method: 'GET', path: `/bulk-payout-items/${t.valid(2)}` });
    expect(item.body.corrections).toMatchObject([{ status: 'pending_approval' }]);
    expect(t.patchCount()).toBe(before + 5);
    expect(await t.capTotal()).toBe(5 * NEARLY_TEN_THOUSAND_NAIRA);
  });
});

describe('bulk corrections on a sharded daily cap', () => {
  // ₦400,000 a day in 4 shares of ₦100,000 (DAILY_CAP_SHARDS on): a ₦150,000 correction fits no share alone.
  const FOUR_HUNDRED_THOUSAND_NAIRA = 40_000_000;
  const ONE_HUNDRED_FIFTY_THOUSAND_NAIRA = 15_000_000;
  beforeAll(() => useCapShards(MAX_CAP_SHARDS));
  afterAll(() => useCapShards(1));
  const t = harnessOf({
    MAX_PAYOUT_KOBO: String(FOUR_HUNDRED_THOUSAND_NAIRA),
    APPROVAL_THRESHOLD_KOBO: String(FOUR_HUNDRED_THOUSAND_NAIRA),
    DAILY_CAP_KOBO: String(FOUR_HUNDRED_THOUSAND_NAIRA),
  });
  const shardedTotal = async () => {
    const ctx = payoutEngineOf(t.h().runtime).ctx;
    const day = calendarDayIn(ctx.config.capTimeZone, ctx.clock.now());
    const totals = await capShardTotals(
      DocumentClient.from(t.h().runtime.dynamoDb),
      t.h().runtime.tableName,
      MAIN_WALLET_CAP_COUNTER,
      day,
    );
    return totals.reduce((sum, total) => sum + total, 0);
  };

  it("takes a correction larger than one shard's share from the shards with room, and refuses one past the whole cap", async () => {
    const before = t.patchCount();
    for (let n = 0; n < 2; n++) {
      const sent = await t.patch(t.valid(n), { amount: ONE_HUNDRED_FIFTY_THOUSAND_NAIRA });
      expect(sent.status, `correction ${n + 1}`).toBe(200);
      expect(sent.body.outcome).toBe('corrected');
    }
    expect(await shardedTotal()).toBe(2 * ONE_HUNDRED_FIFTY_THOUSAND_NAIRA);
    // ₦300,000 of ₦400,000 used: a third ₦150,000 would pass the cap, whichever shards it tried.
    const third = await t.patch(t.valid(2), { amount: ONE_HUNDRED_FIFTY_THOUSAND_NAIRA });
    expect(third.status).toBe(409);
    expect(third.body.type).toContain('daily-cap-exceeded');
    expect(t.patchCount()).toBe(before + 2);
    expect(await shardedTotal()).toBe(2 * ONE_HUNDRED_FIFTY_THOUSAND_NAIRA);
  });
});

describe('bulk corrections pass the gate like every other money instruction', () => {
  const t = harnessOf({ MAX_PAYOUT_KOBO: TEN_THOUSAND_NAIRA, APPROVAL_THRESHOLD_KOBO: TEN_THOUSAND_NAIRA });

  it('gives the cap back only when the provider proves the correction was not applied', async () => {
    const id = t.valid(0);
    const start = await t.capTotal();
    // Applied: the reservation stays.
    const applied = await t.patch(id, { amount: 300_000 });
    expect(applied.body.outcome).toBe('corrected');
    expect(await t.capTotal()).toBe(start + 300_000);
    // Sent, no answer (the provider applied it, then failed): it may have been applied, the reservation stays.
    t.h().sandbox.injectFault({ path: PATCH_PATH, fault: 'error-500-after-commit' });
    const unknown = await t.patch(id, { amount: 200_000 });
    expect(unknown.status).toBe(502);
    expect(await t.capTotal()).toBe(start + 500_000);
    // Refused by the provider (no such item): nothing changed there, the reservation is given back.
    const refused = await t.patch('no-such-item', { amount: 100_000 });
    expect(refused.status).toBe(404);
    expect(await t.capTotal()).toBe(start + 500_000);
    // Not taken (429: nothing was sent): given back.
    t.h().sandbox.injectFault({ path: PATCH_PATH, fault: 'error-429' });
    const notSent = await t.patch(id, { amount: 100_000 });
    expect(notSent.status).toBe(503);
    expect(await t.capTotal()).toBe(start + 500_000);
    // Saved, but the provider reports the item invalid (its account number is not 10 digits): it is not paid.
    const stillInvalid = await t.patch(t.invalid(0), { amount: 100_000 });
    expect(stillInvalid.body).toMatchObject({ outcome: 'still_invalid', isValid: false });
    expect(await t.capTotal()).toBe(start + 500_000);
  });

  it('holds a redirect of a 9,999 NGN item by the operator who set its amount for a second person', async () => {
    const id = t.invalid(0);
    // The amount, set by alice; the item stays invalid (its account number is not 10 digits).
    const amount = await t.patch(id, { amount: NEARLY_TEN_THOUSAND_NAIRA });
    expect(amount.body).toMatchObject({ outcome: 'still_invalid', isValid: false });
    const before = t.patchCount();
    const redirect = await t.patch(id, { accountNumber: '0123456789' });
    expect(redirect.status).toBe(202);
    expect(redirect.body.outcome).toBe('pending_approval');
    expect(t.patchCount()).toBe(before);
    const approved = await t.approve(id, redirect.body.correction.correctionId, 'bob');
    expect(approved.status).toBe(200);
    expect(approved.body.outcome).toBe('corrected');
    expect(t.patchCount()).toBe(before + 1);
  });

  it('holds every redirect of an item the provider may hold as valid, and one of an invalid item whose new destination the releaser entered', async () => {
    const before = t.patchCount();
    // Never corrected here: its validity is not known.
    const unknown = await t.patch(t.valid(0), { accountNumber: '0123456780' });
    expect(unknown.status).toBe(202);
    expect(unknown.body.correction.reason).toContain('may hold as valid');
    // Known valid here, its amount set by bob: a redirect still waits for a second person.
    const amount = await t.patch(t.valid(1), { amount: 400_000 }, 'bob');
    expect(amount.body).toMatchObject({ outcome: 'corrected', isValid: true });
    const valid = await t.patch(t.valid(1), { bankCode: '044' });
    expect(valid.status).toBe(202);
    expect(valid.body.correction.reason).toContain('may hold as valid');
    // Known invalid, its amount set by bob below the threshold: the new destination alice entered and would release
    // herself waits for a second person.
    const set = await t.patch(t.invalid(1), { amount: 400_000 }, 'bob');
    expect(set.body).toMatchObject({ outcome: 'still_invalid', isValid: false });
    const afterSet = t.patchCount();
    const invalid = await t.patch(t.invalid(1), { bankCode: '058' });
    expect(invalid.status).toBe(202);
    expect(invalid.body.correction.reason).toContain('entered by the same person who releases it');
    expect(t.patchCount()).toBe(afterSet);
    expect(afterSet).toBe(before + 2);
    // At the approval the releaser is carol, not the person who entered it: it goes.
    const approved = await t.approve(t.invalid(1), invalid.body.correction.correctionId, 'carol');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ outcome: 'corrected', isValid: true });
    expect(t.patchCount()).toBe(afterSet + 1);
  });

  it("sends nothing when a pause lands between a single correction's claim and its send", async () => {
    const id = t.valid(2);
    const ctx = payoutEngineOf(t.h().runtime).ctx;
    let reads = 0;
    // The pause lands right after the read before the claim: only a read after the claim can see it.
    const service = t.service({
      controls: async () => {
        const controls = await ctx.store.getControls();
        if (++reads === 1) await pausePayouts(ctx, ops, 'lands between the read and the claim');
        return controls;
      },
    });
    const before = t.patchCount();
    const capBefore = await t.capTotal();
    try {
      const result = await service.correct(id, { amount: 300_000 }, alice);
      expect(result).toMatchObject({ outcome: 'paused', failure: { code: 'PAYOUTS_PAUSED' } });
      expect(t.patchCount()).toBe(before);
      // The reservation is given back with the claim.
      expect(await t.capTotal()).toBe(capBefore);
    } finally {
      await resumePayouts(ctx, ops);
    }
    // The claim was given back: the item's next correction is sent.
    const after = await t.patch(id, { amount: 300_000 });
    expect(after.status).toBe(200);
    expect(t.patchCount()).toBe(before + 1);
  });

  it('sends a single correction once when the same PATCH arrives twice at once', async () => {
    const id = t.valid(3);
    const real = new BulkPayouts(providerConnectionOf(t.h().runtime).requester);
    // The first request's provider call waits until the second request is answered: they overlap for certain.
    let entered!: () => void;
    const firstEntered = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const service = t.service({
      provider: {
        bulkPayouts: {
          updateItem: async (input, options) => {
            if (++calls === 1) {
              entered();
              await held;
            }
            return real.updateItem(input, options);
          },
        } as Pick<ProviderClient, 'bulkPayouts'>['bulkPayouts'],
      },
    });
    const before = t.patchCount();
    const body = { narration: 'June salaries, once' };
    const first = service.correct(id, body, alice);
    try {
      await firstEntered;
      await expect(service.correct(id, body, alice)).rejects.toBeInstanceOf(ConcurrentModificationError);
    } finally {
      release();
    }
    expect(await first).toMatchObject({ outcome: 'corrected' });
    expect(t.patchCount()).toBe(before + 1);
    // Its claim ended with its outcome: the item's next correction is sent.
    const next = await t.patch(id, { narration: 'July salaries' });
    expect(next.status).toBe(200);
    expect(t.patchCount()).toBe(before + 2);
  });
});
