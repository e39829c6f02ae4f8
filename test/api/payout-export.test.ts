import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, runCli } from '../../lib/cli/commands.js';
import { type LocalApiServer, serveApiGatewayHandler } from '../../lib/local/http-to-apigw.js';
import type { Payout } from '../../lib/payouts/model.js';
import { toPayoutItem } from '../../lib/payouts/store/item-codec.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { BatchWriteCommand, DocumentClient } from '../../lib/shared/document-client.js';
import { ulid } from '../../lib/shared/ids.js';
import { type ApiHarness, bankTransfer, call, startApiHarness, walletTopUp } from './support/harness.js';

/** 09:00 in Lagos on 2 March 2026 (Lagos is UTC+1 all year). */
const clock = new ManualClock('2026-03-02T08:00:00.000Z');
let h: ApiHarness;
let server: LocalApiServer;

const exportOf = (query: string) =>
  call(h.api, { method: 'GET', path: '/payouts/export.csv', query, principal: 'finance' });

async function createAt(at: string, key: string, body: unknown = bankTransfer(), principal = 'alice') {
  clock.set(at);
  const answer = await call(h.api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'idempotency-key': key },
    body,
    principal,
  });
  expect(answer.status).toBe(201);
  return answer.body;
}

/** The cells of one CSV line, as RFC 4180 quotes them. */
function cellsOf(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) {
      cells.push(cell);
      cell = '';
    } else cell += c;
  }
  return [...cells, cell];
}

/** The rows of a CSV part as records by column (no cell here holds a line break). */
function rowsOf(csv: string): Record<string, string>[] {
  const [header = '', ...lines] = csv.trimEnd().split('\r\n');
  const names = cellsOf(header);
  return lines.map((line) => Object.fromEntries(cellsOf(line).map((cell, i) => [names[i], cell])));
}

/** `count` copies of `template` created on `day` (one every 30 s from 10:00 Lagos), written straight to the table. */
async function copiesOn(template: Payout, day: string, count: number): Promise<string[]> {
  const doc = DocumentClient.from(h.runtime.dynamoDb);
  const start = Date.parse(`${day}T09:00:00.000Z`);
  const copies = Array.from({ length: count }, (_, n) => {
    const createdAt = new Date(start + n * 30_000).toISOString();
    return { ...template, id: ulid(new Date(createdAt)), idempotencyKey: `copy-${day}-${n}`, createdAt };
  });
  for (let at = 0; at < copies.length; at += 25) {
    let pending = copies.slice(at, at + 25).map((payout) => ({ PutRequest: { Item: toPayoutItem(payout) } }));
    while (pending.length > 0) {
      const result = await doc.send(new BatchWriteCommand({ RequestItems: { [h.tableName]: pending } }));
      pending = (result.UnprocessedItems?.[h.tableName] ?? []) as typeof pending;
    }
  }
  return copies.map((copy) => copy.id);
}

beforeAll(async () => {
  h = await startApiHarness({
    clock,
    sandbox: { now: () => clock.now() },
    env: { APPROVAL_THRESHOLD_KOBO: '10000000' },
  });
  server = await serveApiGatewayHandler(h.api, { port: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
});

describe('GET /payouts/export.csv', () => {
  let inside: string[] = [];
  let outside: string[] = [];
  let paid: Record<string, any>;
  let approved: Record<string, any>;
  let wallet: Record<string, any>;

  beforeAll(async () => {
    // The edges of 2 March in Lagos: 23:00 UTC the day before is its first instant, 22:59:59.999 UTC its last.
    const before = await createAt('2026-03-01T22:59:59.999Z', 'edge-before');
    const first = await createAt('2026-03-01T23:00:00.000Z', 'edge-first');
    paid = await createAt('2026-03-02T09:00:00.000Z', 'paid', bankTransfer({ narration: 'invoice 77' }));
    const held = await createAt('2026-03-02T10:00:00.000Z', 'held', bankTransfer({ amount: 20_000_000 }));
    const approval = await call(h.api, {
      method: 'POST',
      path: `/payouts/${held.id}/approve`,
      body: {},
      principal: 'bob',
    });
    expect(approval.status).toBe(200);
    approved = approval.body;
    const fixtures = h.sandbox.fixtures();
    wallet = await createAt('2026-03-02T11:00:00.000Z', 'wallet', walletTopUp(fixtures));
    const last = await createAt('2026-03-02T22:59:59.999Z', 'edge-last');
    const after = await createAt('2026-03-02T23:00:00.000Z', 'edge-after');
    inside = [first.id, paid.id, approved.id, wallet.id, last.id];
    outside = [before.id, after.id];
  }, 60_000);

  it("lists every payout created on the days asked, in the statement's zone, and none of the days around", async () => {
    const answer = await exportOf('from=2026-03-02&to=2026-03-02');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers.link).toBeUndefined();
    const ids = rowsOf(answer.body).map((row) => row.id);
    // Newest first, as the listing reads them.
    expect(ids).toEqual([...inside].reverse());
    for (const id of outside) expect(answer.body).not.toContain(id);
    const both = rowsOf((await exportOf('from=2026-03-01&to=2026-03-03')).body).map((row) => row.id);
    expect(both.sort()).toEqual([...inside, ...outside].sort());
  });

  it("writes each payout's columns as its own answer shows them, the account number cut to its last four digits", async () => {
    const rows = rowsOf((await exportOf('from=2026-03-02&to=2026-03-02')).body);
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(paid.id)).toEqual({
      id: paid.id,
      created_at: '2026-03-02T09:00:00.000Z',
      type: 'bank_transfer',
      origin: 'api',
      source_ref: '',
      status: 'succeeded',
      amount_kobo: '250000',
      amount_ngn: 'NGN 2,500.00',
      charges_kobo: String(paid.receipt.charges),
      debited_account: 'main_wallet',
      destination_bank_code: '058',
      destination_account_last4: '6789',
      destination_name: 'Ada Obi',
      destination_wallet: '',
      narration: 'invoice 77',
      provider_transaction_id: paid.receipt.transactionId,
      provider_reference: paid.receipt.reference ?? '',
      paid_at: paid.receipt.paidAt ?? '',
      failure: '',
      requested_by: 'alice',
      approved_by: '',
      updated_at: paid.updatedAt,
    });
    expect(byId.get(approved.id)).toMatchObject({ requested_by: 'alice', approved_by: 'bob' });
    expect(byId.get(wallet.id)).toMatchObject({
      type: 'wallet_transfer',
      debited_account: `wallet/${wallet.sourceWalletId}`,
      destination_wallet: wallet.destinationWalletId,
      destination_account_last4: '',
    });
  });

  it('never writes a whole account number, and quotes the amount in naira as one cell', async () => {
    const csv = (await exportOf('from=2026-03-02&to=2026-03-02')).body as string;
    expect(csv).not.toContain('0123456789');
    expect(csv).toContain(',"NGN 2,500.00",');
    expect(csv.split('\r\n')[0]).toBe(
      'id,created_at,type,origin,source_ref,status,amount_kobo,amount_ngn,charges_kobo,debited_account,' +
        'destination_bank_code,destination_account_last4,destination_name,destination_wallet,narration,' +
        'provider_transaction_id,provider_reference,paid_at,failure,requested_by,approved_by,updated_at',
    );
  });

  it.each([
    ['from after to', 'from=2026-03-05&to=2026-03-04', ['query.from', 'query.to']],
    ['more than 31 days', 'from=2026-03-01&to=2026-04-01', ['query.to']],
    ['a day that is no date', 'from=2026-02-30&to=2026-03-01', ['query.from']],
    ['an instant instead of a day', 'from=2026-03-01T00:00:00Z&to=2026-03-02', ['query.from']],
    ['no to', 'from=2026-03-01', ['query.to']],
    ['a cursor no export issued', 'from=2026-03-01&to=2026-03-02&cursor=bm90LWEtY3Vyc29y', ['cursor']],
  ])('refuses %s with a 400 naming the field', async (_, query, paths) => {
    const answer = await exportOf(query);
    expect(answer.status).toBe(400);
    expect([...new Set(answer.body.errors.map((error: { path: string }) => error.path))]).toEqual(paths);
  });

  it('answers 31 days, both counted', async () => {
    expect((await exportOf('from=2026-03-01&to=2026-03-31')).status).toBe(200);
  });
});

describe('an export larger than one answer', () => {
  let ids: string[] = [];

  beforeAll(async () => {
    const template = (await createAt('2026-04-10T08:00:00.000Z', 'template-april')) as { id: string };
    const stored = await h.runtime.payouts.get(template.id);
    if (!stored) throw new Error('the template payout was not stored');
    ids = [template.id, ...(await copiesOn(stored, '2026-04-11', 1_100))];
  }, 90_000);

  it('comes in parts of at most 500 rows, each naming the next with Link rel="next", every payout once', async () => {
    const seen: string[] = [];
    let query = 'from=2026-04-10&to=2026-04-11';
    let parts = 0;
    for (;;) {
      const answer = await exportOf(query);
      expect(answer.status).toBe(200);
      parts++;
      const rows = rowsOf(answer.body);
      expect(rows.length).toBeLessThanOrEqual(500);
      seen.push(...rows.map((row) => row.id as string));
      const next = /^<\/payouts\/export\.csv\?([^>]+)>; rel="next"$/.exec(answer.headers.link ?? '')?.[1];
      if (!next) break;
      query = next;
    }
    expect(parts).toBe(3);
    expect(seen).toHaveLength(ids.length);
    expect(new Set(seen)).toEqual(new Set(ids));
  });

  it("refuses a part's cursor with another range: 400 naming cursor", async () => {
    const first = await exportOf('from=2026-04-10&to=2026-04-11');
    const cursor = new URLSearchParams(/\?([^>]+)>/.exec(first.headers.link ?? '')?.[1]).get('cursor');
    expect(cursor).toBeTruthy();
    const other = await exportOf(`from=2026-04-12&to=2026-04-13&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.errors).toEqual([{ path: 'cursor', message: expect.any(String) }]);
  });

  it('the CLI joins the parts into one file with one header row (payouts export --out FILE)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payout-export-')), 'april.csv');
    let out = '';
    let err = '';
    const io: CliIo = {
      out: (text) => {
        out += text;
      },
      err: (text) => {
        err += text;
      },
      env: {},
      readStdin: () => '',
      credentials: () => async () => ({ accessKeyId: 'x', secretAccessKey: 'y' }),
      confirm: async () => false,
      stackApiUrl: async () => '',
    };
    const status = await runCli(
      ['--api', server.url, 'payouts', 'export', '--from', '2026-04-10', '--to', '2026-04-11', '--out', file],
      io,
    );
    expect({ status, err }).toEqual({ status: 0, err: '' });
    expect(out).toBe(`${file}: ${ids.length} rows\n`);
    const csv = readFileSync(file, 'utf8');
    expect(csv.match(/^id,created_at,/gm)).toHaveLength(1);
    expect(new Set(rowsOf(csv).map((row) => row.id))).toEqual(new Set(ids));
    expect(rowsOf(csv)).toHaveLength(ids.length);
  });
});
