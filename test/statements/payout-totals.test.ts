import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, runCli } from '../../lib/cli/commands.js';
import { type LocalApiServer, serveApiGatewayHandler } from '../../lib/local/http-to-apigw.js';
import { statementsOf } from '../../lib/runtime/statements.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { type ApiHarness, bankTransfer, call, startApiHarness, walletTopUp } from '../api/support/harness.js';

const DAY = '2026-03-02';
const clock = new ManualClock('2026-03-02T08:00:00.000Z');
let h: ApiHarness;
let server: LocalApiServer;

async function createAt(at: string, key: string, body: unknown) {
  clock.set(at);
  const answer = await call(h.api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'idempotency-key': key },
    body,
    principal: 'alice',
  });
  expect(answer.status).toBe(201);
  return answer.body;
}

beforeAll(async () => {
  h = await startApiHarness({
    clock,
    sandbox: { now: () => clock.now() },
    env: { APPROVAL_THRESHOLD_KOBO: '10000000' },
  });
  server = await serveApiGatewayHandler(h.api, { port: 0 });
  // The day before in Lagos: not counted.
  await createAt('2026-03-01T22:59:59.999Z', 'before', bankTransfer({ amount: 111_100 }));
  await createAt('2026-03-01T23:00:00.000Z', 'paid-1', bankTransfer({ amount: 100_000 }));
  await createAt('2026-03-02T09:00:00.000Z', 'paid-2', bankTransfer({ amount: 200_000 }));
  await createAt('2026-03-02T10:00:00.000Z', 'held', bankTransfer({ amount: 20_000_000 }));
  const fixtures = h.sandbox.fixtures();
  await createAt('2026-03-02T11:00:00.000Z', 'wallet', walletTopUp(fixtures));
  clock.set('2026-03-03T05:30:00.000Z');
  await statementsOf(h.runtime).run(DAY, 'system:statements');
}, 120_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
});

describe("the daily statement's payout totals", () => {
  it("counts and sums the day's payouts by status and by type, every status and type named", async () => {
    const answer = await call(h.api, { method: 'GET', path: `/statements/${DAY}`, principal: 'carol' });
    expect(answer.status).toBe(200);
    const totals = answer.body.payoutTotals;
    expect(totals).toMatchObject({ complete: true, count: 4, amountKobo: 20_310_000 });
    expect(totals.byStatus).toMatchObject({
      succeeded: { count: 3, amountKobo: 310_000 },
      pending_approval: { count: 1, amountKobo: 20_000_000 },
      failed: { count: 0, amountKobo: 0 },
    });
    expect(Object.keys(totals.byStatus)).toHaveLength(10);
    expect(totals.byType).toMatchObject({
      bank_transfer: { count: 3, amountKobo: 20_300_000 },
      wallet_transfer: { count: 1, amountKobo: 10_000 },
      child_debit: { count: 0, amountKobo: 0 },
    });
    expect(Object.keys(totals.byType)).toHaveLength(6);
  });

  it("sums to the day's export", async () => {
    const csv = await call(h.api, {
      method: 'GET',
      path: '/payouts/export.csv',
      query: `from=${DAY}&to=${DAY}`,
      principal: 'carol',
    });
    const [header = '', ...rows] = (csv.body as string).trimEnd().split('\r\n');
    const at = header.split(',').indexOf('amount_kobo');
    const sum = rows.reduce((total, row) => total + Number(row.split(',')[at]), 0);
    expect({ rows: rows.length, sum }).toEqual({ rows: 4, sum: 20_310_000 });
  });

  it('are listed with the reports and shown by `statements show`', async () => {
    const listed = await call(h.api, { method: 'GET', path: '/statements', principal: 'carol' });
    expect(listed.body.items[0].payoutTotals.count).toBe(4);
    let out = '';
    const io: CliIo = {
      out: (text) => {
        out += text;
      },
      err: () => undefined,
      env: {},
      readStdin: () => '',
      credentials: () => async () => ({ accessKeyId: 'x', secretAccessKey: 'y' }),
      confirm: async () => false,
      stackApiUrl: async () => '',
    };
    expect(await runCli(['--api', server.url, 'statements', 'show', DAY], io)).toBe(0);
    expect(out).toContain('payoutTotals:\n  complete: true\n  count: 4\n  amountKobo: 20310000');
    expect(out).toMatch(/byType:\n {4}bank_transfer:\n {6}count: 3\n {6}amountKobo: 20300000/);
  });
});
