import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSweep } from '../../lib/jobs/scheduled.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import type { Payout } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import { WorkQueue } from '../../lib/table/index.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from './support/harness.js';

let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness({ env: { RECONCILE_INTERVAL_MS: '1' } });
});
afterAll(async () => h.close());

/** A bank payout made straight at the provider (a person on the provider's dashboard), with a chosen narration. */
async function atProvider(narration: string, amount = 2500, accountNumber = '0123456789'): Promise<string> {
  const response = await fetch(`${h.sandbox.url}/settlement/instant/payout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount,
      bankCode: '058',
      accountNumber,
      accountName: 'Ada Obi',
      narration,
      metadata: {},
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { transactionId: string } }).data.transactionId;
}

/** Sends a second provider operation carrying the payout's marker, so the reconciler cannot tell which is ours. */
async function duplicateAtProvider(payoutId: string): Promise<void> {
  await atProvider(`manual retry po_${payoutId}`);
}

let reviewCounter = 0;
/** A payout in needs_review: its answer was lost, and a second matching record appeared at the provider. */
async function payoutInReview(): Promise<string> {
  h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
  const created = await call(h.api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'idempotency-key': `in-review-${++reviewCounter}` },
    body: bankTransfer(),
  });
  const id: string = created.body.id;
  await duplicateAtProvider(id);
  await servedBy('reconcile-payouts', () => reconcilePayouts(payoutEngineOf(h.runtime).ctx));
  expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');
  return id;
}

const resolve = (id: string, principal: string, body: Record<string, unknown>) =>
  call(h.api, { method: 'POST', path: `/payouts/${id}/resolve`, body, principal });

/** The payout as stored (its cap day and watched attempts are not answered by the API). */
async function stored(harness: ApiHarness, id: string): Promise<Payout> {
  const payout = await payoutEngineOf(harness.runtime).ctx.store.get(id);
  if (!payout) throw new Error(`no payout ${id}`);
  return payout;
}

/** What the merchant wallet's daily cap counts today, in kobo. */
function capUsedToday(harness: ApiHarness): Promise<number> {
  const { ctx } = payoutEngineOf(harness.runtime);
  return ctx.store.getCapUsage('merchant', calendarDayIn(ctx.config.capTimeZone, ctx.clock.now()));
}

/** Whether the reconciler's watch will look at the payout again (it sits in the watch work queue). */
async function inWatchQueue(harness: ApiHarness, id: string): Promise<boolean> {
  const { ctx } = payoutEngineOf(harness.runtime);
  const farFuture = new Date(ctx.clock.now().getTime() + 365 * 86_400_000).toISOString();
  return (await ctx.store.due(WorkQueue.Watch, farFuture, 1000)).some((one) => one.id === id);
}

/** The provider records carrying the payout's marker (any attempt), oldest first. */
const recordsOf = (harness: ApiHarness, id: string) =>
  harness.sandbox.ledger().operations.filter((op) => op.narration.includes(`po_${id}`));

let unknownCounter = 0;
/** A 2,500.00 payout left `unknown` by a provider call that timed out after paying, or reset before it. */
async function unknownPayout(fault: 'timeout-after-commit' | 'reset-before-commit'): Promise<string> {
  h.sandbox.injectFault({ path: '/settlement/instant/payout', fault, times: 1 });
  const created = await call(h.api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'idempotency-key': `unknown-${fault}-${++unknownCounter}` },
    body: bankTransfer(),
  });
  expect(created.body.status).toBe('unknown');
  return created.body.id;
}

const reconcile = (harness: ApiHarness) =>
  servedBy('reconcile-payouts', () => reconcilePayouts(payoutEngineOf(harness.runtime).ctx));

describe('POST /payouts/{id}/resolve', () => {
  it('lets two people decide a payout the reconciler handed over, with both decisions audited', async () => {
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    const created = await call(h.api, {
      method: 'POST',
      path: '/payouts',
      headers: { 'idempotency-key': 'review-1' },
      body: bankTransfer(),
    });
    expect(created.body.status).toBe('unknown');
    const id: string = created.body.id;
    await duplicateAtProvider(id);
    await servedBy('reconcile-payouts', () => reconcilePayouts(payoutEngineOf(h.runtime).ctx));
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');

    const incomplete = await call(h.api, {
      method: 'POST',
      path: `/payouts/${id}/resolve`,
      body: { outcome: 'succeeded', note: 'first of the two records is ours' },
      principal: 'carol',
    });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.errors[0].path).toBe('transactionId');

    const transactionId = h.sandbox
      .ledger()
      .operations.find((op) => op.narration.endsWith(`po_${id}`) && op.amount === 2500)?.transactionId;
    const decision = {
      outcome: 'succeeded',
      transactionId,
      note: 'ours is the 2,500.00 debit; the other was a manual retry, refund requested',
    };
    const proposed = await resolve(id, 'carol', decision);
    expect(proposed.status).toBe(202);
    expect(proposed.body).toMatchObject({
      status: 'needs_review',
      resolutionProposal: { outcome: 'succeeded', transactionId, forced: false, proposedBy: { id: 'carol' } },
    });
    const resolved = await resolve(id, 'dave', { ...decision, note: 'the statement agrees' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.status).toBe('succeeded');
    expect(resolved.body.resolutionProposal).toBeUndefined();
    const audit = (await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.audit;
    expect(audit.at(-1)).toMatchObject({ from: 'needs_review', to: 'succeeded', actor: { id: 'dave' } });
    expect(audit.at(-1).reason).toMatch(/proposed by carol \(.*manual retry.*\), confirmed by dave/);

    const again = await call(h.api, {
      method: 'POST',
      path: `/payouts/${id}/resolve`,
      body: { outcome: 'failed', note: 'changed my mind' },
      principal: 'carol',
    });
    expect(again.status).toBe(409);
  });

  it('refuses (409) to resolve as paid with a transaction id the provider does not have, changing nothing', async () => {
    const id = await payoutInReview();
    const fake = await resolve(id, 'carol', {
      outcome: 'succeeded',
      transactionId: 'not-a-real-tx',
      note: 'trust me',
    });
    expect(fake.status).toBe(409);
    expect(fake.body.detail).toMatch(/not-a-real-tx/);
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');
  });

  it.each([
    ['another amount', (id: string) => atProvider(`refund po_${id}`, 1), /amount 100 kobo, not 250000/],
    [
      'another account',
      (id: string) => atProvider(`refund po_${id}`, 2500, '2222222222'),
      /destination 058\/2222222222, not 058\/0123456789/,
    ],
    [
      "another payout's marker",
      (id: string) => atProvider(`thanks po_${id} po_01KJQ3Z8V6W9X2Y4A7B1C3D5E7`),
      /does not end with a marker of this payout/,
    ],
  ])('refuses (409) a real provider record with %s, naming the mismatch', async (_what, make, mismatch) => {
    const id = await payoutInReview();
    const transactionId = await make(id);
    const refused = await resolve(id, 'carol', { outcome: 'succeeded', transactionId, note: 'this one' });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(transactionId);
    expect(refused.body.detail).toMatch(mismatch);
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');
  });

  it('resolves as paid with a verified record, keeping the charges the provider recorded', async () => {
    const id = await payoutInReview();
    const ours = h.sandbox.ledger().operations.filter((op) => op.narration.endsWith(`po_${id}`));
    expect(ours).toHaveLength(2);
    const decision = {
      outcome: 'succeeded',
      transactionId: ours[0]?.transactionId,
      note: 'the first debit is ours; the manual retry is being recovered',
    };
    expect((await resolve(id, 'carol', decision)).status).toBe(202);
    const resolved = await resolve(id, 'dave', decision);
    expect(resolved.status).toBe(200);
    // 10.75 is the provider's fee with VAT on a 2,500.00 bank payout: the record's charges, not 0.
    expect(ours[0]?.charges).toBe(10.75);
    expect(resolved.body.receipt).toMatchObject({
      transactionId: ours[0]?.transactionId,
      status: 'SUCCESS',
      charges: 1075,
    });
  });

  it('refuses a forced resolution confirmed by the person who proposed it, and applies it when a second person confirms', async () => {
    const id = await payoutInReview();
    const foreign = await atProvider(`refund po_${id}`, 1);
    const force = { outcome: 'succeeded', transactionId: foreign, force: true };

    const proposed = await resolve(id, 'carol', {
      ...force,
      note: 'bank statement shows it; amount misreported',
    });
    expect(proposed.status).toBe(202);
    expect(proposed.body.status).toBe('needs_review');
    expect(proposed.body.resolutionProposal).toMatchObject({
      transactionId: foreign,
      proposedBy: { id: 'carol' },
    });
    expect(proposed.body.resolutionProposal.mismatch).toMatch(/amount 100 kobo/);

    // The same person, however spelt, cannot confirm their own proposal.
    for (const self of ['carol', 'CAROL']) {
      const again = await resolve(id, self, { ...force, note: 'confirming' });
      expect(again.status).toBe(403);
    }
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');

    const confirmed = await resolve(id, 'dave', { ...force, note: 'checked the statement with carol' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('succeeded');
    // The provider record's own charges (10.75 on a 1.00 bank payout), not 0.
    expect(confirmed.body.receipt).toMatchObject({ transactionId: foreign, charges: 1075 });
    const audit = (await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.audit;
    expect(audit.at(-1)).toMatchObject({ from: 'needs_review', to: 'succeeded', actor: { id: 'dave' } });
    expect(audit.at(-1).reason).toMatch(/proposed by carol .* confirmed by dave/);
  });

  it('refuses to resolve as not paid while an attempt has a SUCCESS record, unless a second person confirms with force', async () => {
    const capBefore = await capUsedToday(h);
    const id = await unknownPayout('timeout-after-commit');
    const [paid] = recordsOf(h, id);
    expect(await capUsedToday(h)).toBe(capBefore + 250_000);

    for (const principal of ['carol', 'dave']) {
      const refused = await resolve(id, principal, { outcome: 'failed', note: 'not on the statement' });
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain(`attempt 1 has a SUCCESS record, ${paid?.transactionId}`);
    }
    expect(await stored(h, id)).toMatchObject({ status: 'unknown' });
    expect((await stored(h, id)).resolutionProposal).toBeUndefined();

    const forced = { outcome: 'failed', force: true };
    const proposed = await resolve(id, 'carol', { ...forced, note: 'the bank reversed it the same hour' });
    expect(proposed.status).toBe(202);
    expect(proposed.body.resolutionProposal).toMatchObject({
      outcome: 'failed',
      forced: true,
      proposedBy: { id: 'carol' },
    });
    expect(proposed.body.resolutionProposal.mismatch).toContain(paid?.transactionId);
    for (const self of ['carol', 'CAROL']) {
      expect((await resolve(id, self, { ...forced, note: 'confirming' })).status).toBe(403);
    }
    // Without force the second person is refused like the first: the record is still there.
    expect((await resolve(id, 'dave', { outcome: 'failed', note: 'agreed' })).status).toBe(409);

    const confirmed = await resolve(id, 'dave', { ...forced, note: 'reversal on the statement' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'failed', failure: { code: 'RESOLVED_NOT_PAID' } });
    // The record says the money left: its reservation stays counted.
    expect(await capUsedToday(h)).toBe(capBefore + 250_000);
    // Its attempt stays watched, remembering the record both people saw: seeing it again is no news.
    expect((await stored(h, id)).watchedAttempts).toEqual([
      expect.objectContaining({ number: 1, shownRecords: `${paid?.transactionId}=SUCCESS` }),
    ]);
    await reconcile(h);
    expect((await stored(h, id)).status).toBe('failed');
    const audit = (await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.audit;
    const resolution = audit.find((event: { to: string }) => event.to === 'failed');
    expect(resolution).toMatchObject({ from: 'unknown', actor: { id: 'dave' } });
    expect(resolution.reason).toMatch(/not paid by force: proposed by carol .* confirmed by dave/);
    // The watch looked again and found nothing new.
    expect(audit.at(-1).reason).toMatch(/no record but those already shown to a person/);
  });

  it('resolves a payout as not paid only when the provider shows no record for any attempt and a second person confirms', async () => {
    const capBefore = await capUsedToday(h);
    const id = await unknownPayout('reset-before-commit');
    expect(recordsOf(h, id)).toEqual([]);
    expect(await capUsedToday(h)).toBe(capBefore + 250_000);
    const notPaid = { outcome: 'failed', note: 'not on the statement of today' };

    // No evidence is no absence: with the provider's listings unreadable nothing is proposed.
    h.sandbox.injectFault({ path: '/transaction/wallet', fault: 'error-503', times: 0 });
    try {
      const blind = await resolve(id, 'carol', notPaid);
      expect(blind.status).toBe(503);
    } finally {
      h.sandbox.clearFaults();
    }
    expect(await stored(h, id)).toMatchObject({ status: 'unknown' });
    expect((await stored(h, id)).resolutionProposal).toBeUndefined();

    const proposed = await resolve(id, 'carol', notPaid);
    expect(proposed.status).toBe(202);
    expect(proposed.body).toMatchObject({
      status: 'unknown',
      resolutionProposal: { outcome: 'failed', forced: false, proposedBy: { id: 'carol' } },
    });
    expect(await capUsedToday(h)).toBe(capBefore + 250_000);
    expect((await resolve(id, 'Carol', notPaid)).status).toBe(403);

    const confirmed = await resolve(id, 'dave', { ...notPaid, note: 'checked the statement too' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'failed', failure: { code: 'RESOLVED_NOT_PAID' } });
    expect(await capUsedToday(h)).toBe(capBefore);
    const audit = (await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.audit;
    expect(audit.at(-1)).toMatchObject({ from: 'unknown', to: 'failed', actor: { id: 'dave' } });
    expect(audit.at(-1).reason).toMatch(/proposed by carol .* confirmed by dave .* no record of attempts 1/);
  });

  it('lets two people resolve an unknown payout before its 24 h watch ends', async () => {
    const id = await unknownPayout('timeout-after-commit');
    const [paid] = recordsOf(h, id);
    const decision = { outcome: 'succeeded', transactionId: paid?.transactionId, note: 'on the statement' };

    const proposed = await resolve(id, 'carol', decision);
    expect(proposed.status).toBe(202);
    expect(proposed.body.status).toBe('unknown');
    const confirmed = await resolve(id, 'dave', decision);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({
      status: 'succeeded',
      receipt: { transactionId: paid?.transactionId, status: 'SUCCESS' },
    });
    const audit = (await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.audit;
    expect(audit.at(-1)).toMatchObject({ from: 'unknown', to: 'succeeded', actor: { id: 'dave' } });
  });

  it('keeps watching the attempts of a resolved payout and reports a late record', async () => {
    // The payment is made but listed an hour late: both people see no record of it.
    h.sandbox.setListingLag(3_600_000);
    try {
      const capBefore = await capUsedToday(h);
      const id = await unknownPayout('timeout-after-commit');
      const [paid] = recordsOf(h, id);
      const notPaid = { outcome: 'failed', note: 'no record at the provider' };
      expect((await resolve(id, 'carol', notPaid)).status).toBe(202);
      const confirmed = await resolve(id, 'dave', notPaid);
      expect(confirmed.body.status).toBe('failed');
      expect(await capUsedToday(h)).toBe(capBefore);
      expect((await stored(h, id)).watchedAttempts?.map((a) => a.number)).toEqual([1]);
      expect(await inWatchQueue(h, id)).toBe(true);

      h.sandbox.setListingLag(0);
      await reconcile(h);
      const { body } = await call(h.api, { method: 'GET', path: `/payouts/${id}` });
      expect(body.status).toBe('needs_review');
      expect(body.audit.at(-1).reason).toMatch(
        /recorded as failed, but a record of an earlier attempt showed up/,
      );
      expect(body.audit.at(-1).reason).toContain(paid?.transactionId);
      // The money left after all: the cap counts it again.
      expect(await capUsedToday(h)).toBe(capBefore + 250_000);
    } finally {
      h.sandbox.setListingLag(0);
    }
  });

  it('answers 404 for an unknown payout', async () => {
    const { status } = await call(h.api, {
      method: 'POST',
      path: '/payouts/01KJQ3Z8V6W9X2Y4A7B1C3D5E7/resolve',
      body: { outcome: 'failed', note: 'x' },
    });
    expect(status).toBe(404);
  });
});

describe('resolving a payout paid twice', () => {
  // A clock of their own, shared with the sandbox: the grace period and the listing lag pass in an instant.
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  let p: ApiHarness;
  beforeAll(async () => {
    p = await startApiHarness({
      env: { RECONCILE_INTERVAL_MS: '1' },
      clock,
      sandbox: { now: () => clock.now() },
    });
  });
  afterAll(async () => p.close());

  let counter = 0;
  /**
   * A 2,500.00 payout paid by two attempts: attempt 1 pays but lists late, so it is proved absent and attempt 2
   * is sent, which pays too, its answer lost; once both list, the reconciler finds the double.
   */
  async function paidTwice(): Promise<{ id: string; capBefore: number }> {
    const { ctx } = payoutEngineOf(p.runtime);
    const lag = ctx.config.reconcileGraceMs + 30 * 60_000;
    const capBefore = await capUsedToday(p);
    p.sandbox.setListingLag(lag);
    p.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    const created = await call(p.api, {
      method: 'POST',
      path: '/payouts',
      headers: { 'idempotency-key': `paid-twice-${++counter}` },
      body: bankTransfer(),
    });
    const id: string = created.body.id;
    clock.advance(ctx.config.reconcileGraceMs + 1);
    await reconcile(p);
    expect((await stored(p, id)).status).toBe('pending');
    clock.advance(ctx.config.retryBaseMs);
    p.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    await servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(p.runtime)), 60_000));
    clock.advance(lag);
    p.sandbox.setListingLag(0);
    await reconcile(p);
    const payout = await stored(p, id);
    expect(payout).toMatchObject({ status: 'needs_review', paidTwice: { attempts: [1, 2] } });
    expect(recordsOf(p, id)).toHaveLength(2);
    expect(await capUsedToday(p)).toBe(capBefore + 2 * 250_000);
    return { id, capBefore };
  }

  const resolveIn = (id: string, principal: string, body: Record<string, unknown>) =>
    call(p.api, { method: 'POST', path: `/payouts/${id}/resolve`, body, principal });

  it("refuses to resolve a paid-twice payout as failed on one person's word", async () => {
    const { id, capBefore } = await paidTwice();
    const notPaid = { outcome: 'failed', note: 'the bank returned one of them' };
    for (const [principal, body] of [
      ['carol', notPaid],
      ['carol', { ...notPaid, force: true }],
      ['dave', { ...notPaid, force: true }],
    ] as const) {
      const refused = await resolveIn(id, principal, body);
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(
        /was paid twice \(attempts 1, 2: .*\); it is closed only as paid_twice_recovered/,
      );
    }
    expect(await stored(p, id)).toMatchObject({ status: 'needs_review' });
    expect((await stored(p, id)).resolutionProposal).toBeUndefined();
    // Both payments left the wallet: the cap still counts both.
    expect(await capUsedToday(p)).toBe(capBefore + 2 * 250_000);
  });

  it('closes a paid-twice payout only as paid_twice_recovered with a recovery reference, keeping the cap counted', async () => {
    const { id, capBefore } = await paidTwice();
    const [first] = recordsOf(p, id);
    const asPaid = { outcome: 'succeeded', transactionId: first?.transactionId, note: 'the first is ours' };
    expect((await resolveIn(id, 'carol', asPaid)).status).toBe(409);
    const unnamed = await resolveIn(id, 'carol', { outcome: 'paid_twice_recovered', note: 'recalled' });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.errors[0].path).toBe('recoveryReference');

    const recovered = {
      outcome: 'paid_twice_recovered',
      recoveryReference: 'GTB-RECALL-7781',
      note: 'attempt 2 recalled by the bank',
    };
    const proposed = await resolveIn(id, 'carol', recovered);
    expect(proposed.status).toBe(202);
    expect(proposed.body.resolutionProposal).toMatchObject({
      outcome: 'paid_twice_recovered',
      recoveryReference: 'GTB-RECALL-7781',
      proposedBy: { id: 'carol' },
    });
    expect((await resolveIn(id, 'carol', recovered)).status).toBe(403);

    const closed = await resolveIn(id, 'dave', { ...recovered, note: 'recall confirmed by the bank' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({
      status: 'succeeded',
      receipt: { transactionId: first?.transactionId },
      recovery: {
        recoveryReference: 'GTB-RECALL-7781',
        proposedBy: { id: 'carol' },
        confirmedBy: { id: 'dave' },
      },
      paidTwice: { attempts: [1, 2] },
    });
    expect([...closed.body.paidTwice.transactionIds].sort()).toEqual(
      recordsOf(p, id)
        .map((op) => op.transactionId)
        .sort(),
    );
    // Money left twice: nothing is given back on the cap.
    expect(await capUsedToday(p)).toBe(capBefore + 2 * 250_000);
    const audit = (await call(p.api, { method: 'GET', path: `/payouts/${id}` })).body.audit;
    expect(audit.at(-1)).toMatchObject({ from: 'needs_review', to: 'succeeded', actor: { id: 'dave' } });
    expect(audit.at(-1).reason).toMatch(/paid twice and recovered \(GTB-RECALL-7781\)/);

    // Attempt 1 stays watched to the end of its window; the records already decided on reopen nothing.
    expect((await stored(p, id)).watchedAttempts?.map((a) => a.number)).toEqual([1]);
    expect(await inWatchQueue(p, id)).toBe(true);
    await reconcile(p);
    expect((await stored(p, id)).status).toBe('succeeded');
    expect((await resolveIn(id, 'carol', { outcome: 'failed', note: 'changed my mind' })).status).toBe(409);
  });
});
