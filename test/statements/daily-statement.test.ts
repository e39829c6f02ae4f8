import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStatementTick } from '../../lib/jobs/statement-reconciliation.js';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { Transactions } from '../../lib/provider/resources/transactions.js';
import { AcceptedRefunds } from '../../lib/refunds/accepted-refunds.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { payoutListingOf } from '../../lib/runtime/payout-listing.js';
import { providerConnectionOf } from '../../lib/runtime/provider-connection.js';
import { statementStoreOf } from '../../lib/runtime/statements.js';
import { addSettlement, amendWalletTransaction } from '../../lib/sandbox/index.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { StatementLineKind, type StatementReport, StatementService } from '../../lib/statements/index.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from '../api/support/harness.js';
import { payoutMadeAtProvider } from '../support/engine-harness.js';

const DAY = '2026-03-02';
/** 09:00 in Lagos on the day; the statement runs the next morning. */
const clock = new ManualClock('2026-03-02T08:00:00.000Z');
const PAYOUTS = 199;
/** Three refunds of ours on the day, of three paid payment-link transactions (naira paid → kobo refunded). */
const REFUNDS: readonly { paid: number; amountKobo: number }[] = [
  { paid: 2_000, amountKobo: 50_000 },
  { paid: 15_000, amountKobo: 1_000_000 },
  { paid: 1_234.56, amountKobo: 123_456 },
];

let h: ApiHarness;
let ids: string[] = [];
let doubled = '';
/** The payout that paid the day's instant settlement out to the merchant's bank. */
let settlementPayout = '';
const SETTLEMENT_KOBO = 2_500_000;
let first: StatementReport;
/** The day's refunds of ours, with the provider's refund id and the id of its debit record. */
const refunds: { id: string; providerRefundId: string; recordId: string; amountKobo: number }[] = [];

async function createPayout(n: number): Promise<{ id: string; status: string }> {
  const answer = await call(h.api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'idempotency-key': `statement-${n}` },
    body: bankTransfer({ amount: 100_000 + n, narration: `invoice ${n}` }),
    principal: 'alice',
  });
  expect([201, 202]).toContain(answer.status);
  return { id: answer.body.id, status: answer.body.status };
}

/** A refund of ours through the ops API, accepted by the provider at once (below the approval threshold). */
async function createRefund(n: number, spec: { paid: number; amountKobo: number }) {
  const transaction = h.sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid === spec.paid);
  const answer = await call(h.api, {
    method: 'POST',
    path: '/refunds',
    headers: { 'idempotency-key': `statement-refund-${n}` },
    body: {
      transactionId: transaction?.id,
      amount: spec.amountKobo,
      customerNote: 'sorry',
      merchantNote: 'returned',
    },
    principal: 'dave',
  });
  expect(answer.status).toBe(201);
  expect(answer.body.status).toBe('pending');
  const { id, providerRefundId } = answer.body as { id: string; providerRefundId: string };
  const record = h.sandbox
    .ledger()
    .operations.find((op) => op.path === '/refund' && op.narration === `Refund ${providerRefundId}`);
  if (!record) throw new Error(`the sandbox holds no debit of refund ${id}`);
  return { id, providerRefundId, recordId: record.transactionId, amountKobo: spec.amountKobo };
}

async function payout(id: string) {
  const answer = await call(h.api, { method: 'GET', path: `/payouts/${id}`, principal: 'alice' });
  return answer.body;
}

/** The statement service of the runtime, reading the listing `pageSize` records a page (12 pages for the day). */
function statementsReading(pageSize: number): StatementService {
  return new StatementService({
    store: statementStoreOf(h.runtime),
    transactions: new Transactions(providerConnectionOf(h.runtime).requester),
    engine: h.runtime.payouts.ctx,
    listing: payoutListingOf(h.runtime),
    refunds: new AcceptedRefunds(h.runtime.dynamoDb, h.runtime.tableName),
    timeZone: 'Africa/Lagos',
    pageSize,
  });
}

const lines = (kind: string) =>
  call(h.api, {
    method: 'GET',
    path: `/statements/${DAY}/lines`,
    query: `kind=${kind}&limit=200`,
    principal: 'carol',
  });

/** Every line of a kind, page after page. */
async function allLines(kind: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(h.api, {
      method: 'GET',
      path: `/statements/${DAY}/lines`,
      query: `kind=${kind}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      principal: 'carol',
    });
    items.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return items;
}

describe('the daily statement against the provider', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    h = await startApiHarness({
      clock,
      sandbox: { now: () => clock.now() },
      env: {
        APPROVAL_THRESHOLD_KOBO: '100000000',
        RECONCILE_GRACE_MS: '60000',
        SETTLEMENT_DESTINATION_BANK_CODE: '058',
        SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0987654321',
        SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd',
        SETTLEMENT_SINCE: '2026-03-01T00:00:00Z',
      },
    });
    for (let n = 0; n < PAYOUTS; n++) {
      const created = await createPayout(n);
      expect(created.status).toBe(PayoutStatus.Succeeded);
      ids.push(created.id);
      clock.advance(1_000);
    }
    // Paid twice: the first attempt's answer is lost and its record lags the listing, so the reconciler proves it
    // absent and a second attempt pays; then the first attempt's record shows up.
    h.sandbox.setListingLag(60 * 60_000);
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    const lost = await createPayout(PAYOUTS);
    doubled = lost.id;
    const engine = payoutEngineOf(h.runtime);
    const { config } = engine.ctx;
    clock.advance(config.reconcileIntervalMs);
    await reconcilePayouts(engine.ctx);
    clock.advance(config.reconcileGraceMs);
    await reconcilePayouts(engine.ctx);
    expect((await payout(doubled)).status).toBe(PayoutStatus.Pending);
    clock.advance(config.retryBaseMs);
    await engine.submit(doubled);
    expect((await payout(doubled)).status).toBe(PayoutStatus.Succeeded);
    h.sandbox.setListingLag(0);
    ids = [...ids, doubled];

    // Three refunds of ours: each debits the main wallet with a REFUND record naming the provider's refund id.
    for (const [n, spec] of REFUNDS.entries()) {
      refunds.push(await createRefund(n, spec));
      clock.advance(1_000);
    }

    // A settlement of the day, paid out at once to the merchant's bank by a payout of ours.
    const settlementId = await addSettlement(h.sandbox.url, {
      category: 'MERCHANT_SETTLEMENT',
      amountKobo: SETTLEMENT_KOBO,
    });
    const settled = await call(h.api, {
      method: 'POST',
      path: '/instant-settlements',
      principal: 'alice',
      body: { settlementId },
    });
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ outcome: 'paid', payout: { status: PayoutStatus.Succeeded } });
    settlementPayout = settled.body.payout.id;
    clock.advance(1_000);

    // A debit no payout of ours made, one re-priced after it was answered, one the listing never shows.
    await payoutMadeAtProvider(h.sandbox, { amountNaira: 7_777, narration: 'manual payout to a vendor' });
    const repriced = await payout(ids[5] as string);
    await amendWalletTransaction(h.sandbox.url, {
      transactionId: repriced.receipt.transactionId,
      chargesKobo: 9_999,
    });
    const missing = await payout(ids[6] as string);
    await amendWalletTransaction(h.sandbox.url, {
      transactionId: missing.receipt.transactionId,
      listed: false,
    });

    clock.set('2026-03-03T05:30:00.000Z');
    first = await statementsReading(18).run(DAY, 'system:statements');
  }, 180_000);

  afterAll(async () => {
    await h?.close();
  });

  it('names exactly the foreign debit, the double, the fee mismatch and the missing record in a day of 200 payouts, 3 refunds and a settlement', async () => {
    const findings = Object.fromEntries(
      Object.entries(first.byKind).filter(
        ([kind, tally]) => kind !== StatementLineKind.Matched && tally.count > 0,
      ),
    );
    expect(findings).toEqual({
      provider_not_ours: { count: 1, amountKobo: 777_700 },
      duplicate: { count: 1, amountKobo: 100_000 + PAYOUTS },
      fee_mismatch: { count: 1, amountKobo: 100_005 },
      ours_not_at_provider: { count: 1, amountKobo: 100_006 },
    });
    expect(first.findings).toBe(4);
    // 200 payouts: the double's kept payment is matched, the re-priced and the unlisted ones are findings; the
    // three refunds and the settlement's payout are matched.
    expect(first.byKind.matched.count).toBe(198 + REFUNDS.length + 1);
    expect((await lines('fee_mismatch')).body.items).toMatchObject([
      { payoutId: ids[5], chargesKobo: 9_999, expectedChargesKobo: 1_075 },
    ]);
    expect((await lines('ours_not_at_provider')).body.items).toMatchObject([{ payoutId: ids[6] }]);
    expect((await lines('duplicate')).body.items).toMatchObject([{ payoutId: doubled }]);
    expect((await lines('provider_not_ours')).body.items).toMatchObject([
      { narration: 'manual payout to a vendor', type: 'DEBIT' },
    ]);
    // Totals agree with the provider's: every debit of the day is on a line (201 payout debits, one of them not
    // listed, the foreign one, the three refunds, the settlement's).
    const debits = first.providerTotals.byType.DEBIT;
    expect(debits?.count).toBe(201 - 1 + 1 + REFUNDS.length + 1);
  });

  it("matches the day's settlement, paid out by a payout of ours, to its debit", async () => {
    const matched = (await allLines('matched')).filter((line) => line.payoutId === settlementPayout);
    expect(matched).toEqual([
      expect.objectContaining({ kind: 'matched', type: 'DEBIT', amountKobo: SETTLEMENT_KOBO }),
    ]);
  });

  it("matches each refund of ours to its debit by the provider's refund id, naming the refund, with no finding", async () => {
    const matched = (await allLines('matched')).filter((line) => line.refundId !== undefined);
    expect(matched).toEqual(
      expect.arrayContaining(
        refunds.map((refund) =>
          expect.objectContaining({
            kind: 'matched',
            refundId: refund.id,
            transactionId: refund.recordId,
            type: 'DEBIT',
            category: 'REFUND',
            amountKobo: refund.amountKobo,
          }),
        ),
      ),
    );
    expect(matched).toHaveLength(REFUNDS.length);
    const findings = (
      await Promise.all(['provider_not_ours', 'amount_mismatch', 'ours_not_at_provider'].map(allLines))
    ).flat();
    expect(findings.filter((line) => line.refundId !== undefined || line.category === 'REFUND')).toEqual([]);
    // The CSV names each refund in its own column.
    const csv = await call(h.api, {
      method: 'GET',
      path: `/statements/${DAY}/lines.csv`,
      principal: 'carol',
    });
    const header = String(csv.body).split('\r\n')[0]?.split(',') ?? [];
    const refundColumn = header.indexOf('refund_id');
    expect(refundColumn).toBeGreaterThan(0);
    const named = String(csv.body)
      .split('\r\n')
      .map((row) => row.split(',')[refundColumn])
      .filter((cell) => cell !== undefined && cell !== '' && cell !== 'refund_id');
    expect(named.sort()).toEqual(refunds.map((refund) => refund.id).sort());
  });

  it('follows the provider listing across its 12 pages to the end', () => {
    expect(first.completeness).toBe('complete');
    expect(first.pagesRead).toBe(12);
  });

  it('moves the payout paid twice to needs_review through the engine, naming both records', async () => {
    const reviewed = await payout(doubled);
    expect(reviewed.status).toBe(PayoutStatus.NeedsReview);
    expect(reviewed.paidTwice.attempts).toEqual([1, 2]);
    expect(first.movedToReview).toEqual([doubled]);
  });

  it('changes nothing on a re-run by a person: same findings, no second transition, no new finding, who ran it recorded', async () => {
    const before = await call(h.api, {
      method: 'GET',
      path: `/payouts/${doubled}/audit`,
      principal: 'carol',
    });
    clock.advance(60_000);
    const rerun = await call(h.api, {
      method: 'POST',
      path: `/statements/${DAY}/run`,
      body: {},
      principal: 'carol',
    });
    expect(rerun.status).toBe(200);
    expect(rerun.body.byKind).toEqual(first.byKind);
    expect(rerun.body.movedToReview).toEqual([doubled]);
    expect(
      rerun.body.runs.map((run: { by: string; newFindings: number }) => [run.by, run.newFindings]),
    ).toEqual([
      ['user:carol', 0],
      ['system:statements', 4],
    ]);
    const after = await call(h.api, { method: 'GET', path: `/payouts/${doubled}/audit`, principal: 'carol' });
    expect(after.body).toEqual(before.body);
  });

  it('lists the reports, reads one and downloads its lines as CSV', async () => {
    const list = await call(h.api, { method: 'GET', path: '/statements', principal: 'carol' });
    expect(list.body.items.map((report: StatementReport) => report.date)).toEqual([DAY]);
    const csv = await call(h.api, {
      method: 'GET',
      path: `/statements/${DAY}/lines.csv`,
      principal: 'carol',
    });
    expect(csv.status).toBe(200);
    expect(csv.body.split('\r\n').filter((row: string) => row !== '')).toHaveLength(1 + 198 + 3 + 1 + 4);
    expect(csv.body).toContain('manual payout to a vendor');
  });

  it('refuses a date that is no calendar day, and a kind it does not know, changing nothing', async () => {
    expect(
      (await call(h.api, { method: 'GET', path: '/statements/2026-02-30', principal: 'carol' })).status,
    ).toBe(404);
    const bad = await call(h.api, {
      method: 'GET',
      path: `/statements/${DAY}/lines`,
      query: 'kind=everything',
      principal: 'carol',
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('kind');
    const none = await call(h.api, {
      method: 'POST',
      path: '/statements/2026-02-30/run',
      body: {},
      principal: 'carol',
    });
    expect(none.status).toBe(404);
  });

  it('stops starting pages at its stop instant, stores the day incomplete naming no finding, and the next hourly tick completes it raising nothing again', async () => {
    clock.advance(60_000);
    // A clock read once per unit it may start: three pages, then the stop.
    let reads = 0;
    const cut = await statementsReading(18).run(DAY, 'user:carol', {
      stopStartingAt: 3,
      now: () => reads++,
    });
    expect(cut).toMatchObject({ completeness: 'incomplete', pagesRead: 3, findings: 0 });
    const stored = await call(h.api, { method: 'GET', path: `/statements/${DAY}`, principal: 'carol' });
    expect(stored.body.completeness).toBe('incomplete');
    expect((await lines('duplicate')).body.items).toEqual([]);

    clock.advance(60_000);
    const tick = await runStatementTick(h.runtime, 600_000);
    expect(tick.ran).toBe(true);
    expect(tick.report?.completeness).toBe('complete');
    expect(tick.report?.byKind).toEqual(first.byKind);
    expect(tick.report?.runs[0]).toMatchObject({ by: 'system:statements', newFindings: 0 });
    expect((await lines('duplicate')).body.items).toMatchObject([{ payoutId: doubled }]);
    // Complete and reported by the schedule: the next tick leaves the day alone.
    expect((await runStatementTick(h.runtime, 600_000)).ran).toBe(false);
  });

  it('reports a refund debit whose amount disagrees with our refund as amount_mismatch naming the refund', async () => {
    const refund = refunds[0]!;
    await amendWalletTransaction(h.sandbox.url, { transactionId: refund.recordId, amountKobo: 60_000 });
    clock.advance(60_000);
    const report = await statementsReading(18).run(DAY, 'user:carol');
    expect(report.byKind.amount_mismatch).toEqual({ count: 1, amountKobo: 60_000 });
    expect(report.byKind.matched.count).toBe(first.byKind.matched.count - 1);
    expect(report.findings).toBe(first.findings + 1);
    expect((await lines('amount_mismatch')).body.items).toMatchObject([
      {
        refundId: refund.id,
        transactionId: refund.recordId,
        amountKobo: 60_000,
        expectedAmountKobo: refund.amountKobo,
        category: 'REFUND',
      },
    ]);
    // The provider's debit total counts the record at the amount it lists.
    expect(report.providerTotals.byType.DEBIT?.amountKobo).toBe(
      (first.providerTotals.byType.DEBIT?.amountKobo ?? 0) - refund.amountKobo + 60_000,
    );
  });

  it('reports a refund the provider accepted whose debit it does not list as ours_not_at_provider naming the refund', async () => {
    const refund = refunds[1]!;
    await amendWalletTransaction(h.sandbox.url, { transactionId: refund.recordId, listed: false });
    clock.advance(60_000);
    const report = await statementsReading(18).run(DAY, 'user:carol');
    expect(report.byKind.ours_not_at_provider).toEqual({
      count: 2,
      amountKobo: 100_006 + refund.amountKobo,
    });
    expect((await lines('ours_not_at_provider')).body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ refundId: refund.id, key: refund.id, amountKobo: refund.amountKobo }),
      ]),
    );
  });
});
