import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../lib/cli/commands.js';
import {
  isPayoutRunEvent,
  type PayoutRunEvent,
  PayoutRunEventDetailSchema,
} from '../../lib/events/domain-events.js';
import { InProcessEventBus } from '../../lib/events/event-publisher.js';
import { publishStreamBatch } from '../../lib/events/publish-stream-batch.js';
import { runReconcile, runSweep } from '../../lib/jobs/scheduled.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { serveApiGatewayHandler } from '../../lib/local/http-to-apigw.js';
import { StreamRelay } from '../../lib/local/stream-relay.js';
import { DynamoDbPayoutRunStore, RunMaterialiser, type RunPayouts } from '../../lib/payout-runs/index.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { runEndBookkeeperOf } from '../../lib/runtime/domain-event-runtime.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { runMaterialiserOf } from '../../lib/runtime/payout-runs.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { type ApiHarness, call, startApiHarness } from '../api/support/harness.js';

const THRESHOLD = 10_000_000;
const clock = new ManualClock(new Date());
let h: ApiHarness;
let keyCount = 0;
const newKey = () => `run-test-${Date.now()}-${++keyCount}`;

beforeAll(async () => {
  h = await startApiHarness({ env: { APPROVAL_THRESHOLD_KOBO: String(THRESHOLD) }, clock });
});
afterAll(async () => h.close());
beforeEach(() => h.sandbox.clearFaults());

const HEADER = 'reference,amount,bankCode,accountNumber,accountName,narration';
/** A CSV of `count` distinct rows (each account and amount its own), `bad` rows replaced by the line given. */
function csvOf(count: number, options: { tag?: string; amount?: number; bad?: Record<number, string> } = {}) {
  const lines = [HEADER];
  for (let row = 1; row <= count; row++) {
    const account = String(1_000_000_000 + row).slice(0, 10);
    lines.push(
      options.bad?.[row] ??
        `${options.tag ?? 'pay'}-${row},${(options.amount ?? 100_000) + row},058,${account},Staff ${row},June salary`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function postCsv(csv: string, key = newKey(), principal = 'alice', query = '') {
  return call(h.api, {
    method: 'POST',
    path: '/payout-runs',
    query,
    headers: { 'content-type': 'text/csv', 'idempotency-key': key },
    body: csv,
    principal,
  });
}

const runItems = async () =>
  (await h.items()).filter(
    (item) =>
      String(item.pk).startsWith('PAYOUT_RUN') || String(item.pk).startsWith('IDEMPOTENCY#payout-run'),
  );
const listedRunIds = async (): Promise<string[]> =>
  (await call(h.api, { method: 'GET', path: '/payout-runs', query: 'limit=100' })).body.items.map(
    (run: { runId: string }) => run.runId,
  );
const materialise = (options: { rowsPerRun?: number } = {}) =>
  servedBy('sweep-due-payouts', () => runMaterialiserOf(h.runtime).materialiseDue(options));
const sweep = () =>
  servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
const reconcile = () => servedBy('reconcile-payouts', () => runReconcile(payoutEngineOf(h.runtime)));
const operationsOf = (runId: string) =>
  h.sandbox.ledger().operations.filter((operation) => operation.metadata.runId === runId);
/** The CLI's surroundings in these tests: its output kept in `printed`, no person's credentials or answers. */
const cliIo = (url: string, printed: { out: string }) => ({
  out: (text: string) => {
    printed.out += text;
  },
  err: () => {},
  env: {},
  readStdin: () => '',
  credentials: () => async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'unused' }),
  confirm: async () => false,
  stackApiUrl: async () => url,
});
/**
 * Withdraws a run a test accepted only to read its answer, so that its rows do not join the later tests' ticks
 * (a run's end tests tick the sweep ten times: 1,300 rows of others' runs made them take 15 s instead of 5).
 */
async function withdraw(runId: string) {
  const cancelled = await call(h.api, { method: 'POST', path: `/payout-runs/${runId}/cancel`, body: {} });
  expect(cancelled.status).toBe(200);
}
const getRun = async (runId: string) =>
  (await call(h.api, { method: 'GET', path: `/payout-runs/${runId}` })).body;

describe('payout runs', () => {
  it("shares a tick's rows among the runs waiting: a small run approved after a big one is not held behind it", async () => {
    // First in the file: no earlier run waits, so these two share the tick alone.
    const runStore = new DynamoDbPayoutRunStore(h.runtime.dynamoDb, h.runtime.tableName);
    const big = (await postCsv(csvOf(30, { tag: 'share-big', amount: 20_000 }))).body.runId;
    clock.advance(1_000); // the small run is the newer: runs are served oldest first
    const small = (await postCsv(csvOf(4, { tag: 'share-small', amount: 20_000 }))).body.runId;
    const tick = await servedBy('sweep-due-payouts', () =>
      runMaterialiserOf(h.runtime).materialiseDue({ rowsInAll: 10 }),
    );
    // The big run, oldest, takes its half (5); the small one needs 4 of the 5 left and is done in this tick.
    expect(tick).toMatchObject({ runs: 2, created: 9 });
    expect((await runStore.get(big))?.materialised).toBe(5);
    expect((await runStore.get(small))?.materialised).toBe(4);
    await withdraw(big);
  });

  it('refuses a 1,000-row file with three bad rows, naming the three, storing nothing', async () => {
    const before = h.sandbox.stats().requests;
    const csv = csvOf(1000, {
      bad: {
        4: 'pay-4,100004,058,12345,Staff 4,June salary',
        500: 'pay-500,ten naira,058,1000000500,Staff 500,June salary',
        999: 'pay-999,100999,X1,1000000999,Staff 999,June salary',
      },
    });
    const reply = await postCsv(csv);
    expect(reply.status).toBe(400);
    expect(reply.body.errors.map((issue: { path: string }) => issue.path)).toEqual([
      'row 4.accountNumber',
      'row 500.amount',
      'row 999.bankCode',
    ]);
    expect(await runItems()).toEqual([]);
    expect(h.sandbox.stats().requests).toEqual(before);
  });

  it('refuses repeated references, naming the repeat', async () => {
    const csv = `${HEADER}\nr-1,5000,058,0123456789,Ada,pay\nr-1,6000,058,0123456780,Obi,pay\n`;
    const reply = await postCsv(csv);
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([
      { path: 'row 2.reference', message: expect.stringContaining('repeats the reference of row 1') },
    ]);
  });

  it("holds a run above the threshold for a second person: the requester's own approval is refused, another's releases it", async () => {
    // 40 rows of ~300,000 kobo: each below the threshold, the total above it.
    const csv = csvOf(40, { tag: 'held', amount: 300_000 });
    const created = await postCsv(csv, newKey(), 'alice');
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('pending_approval');
    const runId = created.body.runId;
    expect(created.headers.location).toBe(`/payout-runs/${runId}`);
    const shown = await getRun(runId);
    expect(shown).toMatchObject({
      count: 40,
      totalKobo: 40 * 300_000 + (40 * 41) / 2,
      fileSha256: createHash('sha256').update(csv).digest('hex'),
      largestRows: [
        { row: 40, reference: 'held-40', amountKobo: 300_040 },
        ...Array(4).fill(expect.anything()),
      ],
    });
    // The approvers' queue lists it among the runs waiting for a second person, and only those.
    const waiting = await call(h.api, {
      method: 'GET',
      path: '/payout-runs',
      query: 'state=pending_approval',
    });
    expect(waiting.body.items.map((run: { runId: string }) => run.runId)).toContain(runId);
    expect(new Set(waiting.body.items.map((run: { status: string }) => run.status))).toEqual(
      new Set(['pending_approval']),
    );
    // Nothing becomes a payout while it waits.
    await materialise();
    expect((await getRun(runId)).counts).toEqual({ not_created: 40 });

    const own = await call(h.api, {
      method: 'POST',
      path: `/payout-runs/${runId}/approve`,
      principal: 'alice',
    });
    expect(own.status).toBe(403);
    const approved = await call(h.api, {
      method: 'POST',
      path: `/payout-runs/${runId}/approve`,
      principal: 'bob',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'materialising', approvedBy: { id: 'bob' } });

    await materialise();
    await sweep();
    const done = await getRun(runId);
    expect(done).toMatchObject({ status: 'completed', counts: { succeeded: 40 }, percentDone: 100 });
    expect(done.sentKobo).toBe(done.totalKobo);
    const page = await call(h.api, {
      method: 'GET',
      path: `/payout-runs/${runId}/payouts`,
      query: 'limit=5',
    });
    const payout = await call(h.api, { method: 'GET', path: `/payouts/${page.body.items[0].payoutId}` });
    expect(payout.body).toMatchObject({
      status: 'succeeded',
      approvedBy: { id: 'bob' },
      correlationId: `run:${runId}`,
    });
    expect(operationsOf(runId)).toHaveLength(40);
  });

  it('lets a second person reject a waiting run with a reason: cancelled for good, none of its rows sent', async () => {
    const created = await postCsv(csvOf(40, { tag: 'rejected', amount: 300_000 }), newKey(), 'alice');
    expect(created.body.status).toBe('pending_approval');
    const runId = created.body.runId;
    const reject = (principal: string, body: unknown) =>
      call(h.api, { method: 'POST', path: `/payout-runs/${runId}/reject`, body, principal });
    expect((await reject('alice', { reason: 'mine' })).status).toBe(403);
    const blank = await reject('bob', { reason: ' ' });
    expect(blank.status).toBe(400);
    expect(blank.body.errors.map((issue: { path: string }) => issue.path)).toEqual(['reason']);

    const rejected = await reject('bob', { reason: 'June is paid already' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'cancelled',
      rejection: { by: { id: 'bob', kind: 'user' }, reason: 'June is paid already' },
    });
    const approved = await call(h.api, {
      method: 'POST',
      path: `/payout-runs/${runId}/approve`,
      principal: 'carol',
    });
    expect(approved.status).toBe(409);
    await materialise();
    await sweep();
    expect((await getRun(runId)).counts).toEqual({ cancelled_unsent: 40 });
    expect(operationsOf(runId)).toEqual([]);
  });

  it('pays every row of a run exactly once through a crash mid-materialisation and transient provider faults', async () => {
    const rows = 30;
    const csv = csvOf(rows, { tag: 'crash', amount: 20_000 });
    const created = await postCsv(csv);
    expect(created.body.status).toBe('materialising');
    const runId = created.body.runId;

    // A sweep that dies after the engine created the 13th payout, before its row recorded it.
    const ledger = h.runtime.payouts;
    let creates = 0;
    const crashing: RunPayouts = {
      get: (id) => ledger.get(id),
      cancel: (id, actor, reason) => ledger.cancel(id, actor, reason),
      create: async (command) => {
        const result = await ledger.create(command);
        if (++creates === 13) throw new Error('the sweep was cut off');
        return result;
      },
    };
    const dying = new RunMaterialiser({
      store: new DynamoDbPayoutRunStore(h.runtime.dynamoDb, h.runtime.tableName),
      payouts: crashing,
      clock,
    });
    await expect(servedBy('sweep-due-payouts', () => dying.materialiseDue())).rejects.toThrow('cut off');

    // The provider fails some sends transiently, and answers one only after it paid.
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-503', times: 3 });
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 2 });
    for (let tick = 0; tick < 12; tick++) {
      await materialise();
      await sweep();
      await reconcile();
      const view = await getRun(runId);
      if (view.status === 'completed') break;
      clock.advance(10 * 60_000);
    }
    const view = await getRun(runId);
    expect(view).toMatchObject({ status: 'completed', counts: { succeeded: rows } });
    const operations = operationsOf(runId);
    expect(operations).toHaveLength(rows);
    const paidRows = operations.map((operation) => Number(operation.metadata.runRow)).sort((a, b) => a - b);
    expect(paidRows).toEqual(Array.from({ length: rows }, (_, i) => i + 1));
    for (const operation of operations) {
      const row = Number(operation.metadata.runRow);
      expect(operation.amount).toBe((20_000 + row) / 100);
    }
    // One payout per row: the crashed sweep's 13th payout was found again by its key, not created twice.
    const page = await call(h.api, {
      method: 'GET',
      path: `/payout-runs/${runId}/payouts`,
      query: 'limit=100',
    });
    expect(new Set(page.body.items.map((item: { payoutId: string }) => item.payoutId)).size).toBe(rows);
  });

  it('stops the unsent rows of a run cancelled mid-run, and the sent rows stand', async () => {
    const created = await postCsv(csvOf(10, { tag: 'cancel', amount: 30_000 }));
    const runId = created.body.runId;
    await materialise({ rowsPerRun: 4 });
    await sweep(); // the first 4 are sent
    await materialise({ rowsPerRun: 3 }); // 3 more are payouts, not yet claimed
    const cancelled = await call(h.api, {
      method: 'POST',
      path: `/payout-runs/${runId}/cancel`,
      body: { reason: 'wrong month' },
      principal: 'carol',
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelledPayouts: 3, standingPayouts: 4 });
    await materialise();
    await sweep();
    const view = await getRun(runId);
    expect(view.counts).toEqual({ succeeded: 4, cancelled: 3, cancelled_unsent: 3 });
    expect(operationsOf(runId)).toHaveLength(4);
    const results = await call(h.api, { method: 'GET', path: `/payout-runs/${runId}/results.csv` });
    const lines = results.body.trim().split('\r\n');
    expect(lines[0]).toBe('row,reference,payoutId,status,providerReference,failure');
    expect(lines).toHaveLength(11);
    expect(lines[10]).toMatch(/^10,cancel-10,,cancelled_unsent,,$/);
  });

  it('downloads the results of a run too big for one answer in parts, each naming the next, every row once', async () => {
    const created = await postCsv(csvOf(1_201, { tag: 'parts', amount: 1_000 }));
    expect(created.status).toBe(202);
    const runId = created.body.runId;
    const rows: string[] = [];
    let path: string | undefined = `/payout-runs/${runId}/results.csv`;
    let parts = 0;
    while (path !== undefined) {
      const [route, query = ''] = path.split('?');
      const part = await call(h.api, { method: 'GET', path: route as string, query });
      expect(part.status).toBe(200);
      const [header, ...lines] = part.body.trim().split('\r\n');
      expect(header).toBe('row,reference,payoutId,status,providerReference,failure');
      rows.push(...lines);
      parts++;
      path = /^<([^>]+)>; rel="next"$/.exec(part.headers.link ?? '')?.[1];
    }
    expect(parts).toBe(2);
    expect(rows.map((line) => line.split(',')[1])).toEqual(
      Array.from({ length: 1_201 }, (_, n) => `parts-${n + 1}`),
    );
    // The CLI follows the parts and prints one file, its header once.
    const server = await serveApiGatewayHandler(h.api, { port: 0 });
    try {
      const printed = { out: '' };
      const status = await runCli(
        ['--api', server.url, 'payout-runs', 'results', runId],
        cliIo(server.url, printed),
      );
      expect(status).toBe(0);
      expect(printed.out.trim().split('\r\n')).toEqual([
        'row,reference,payoutId,status,providerReference,failure',
        ...rows,
      ]);
    } finally {
      await server.close();
    }
    await withdraw(runId);
  });

  it('returns the same run for a second POST with the same key', async () => {
    const csv = csvOf(5, { tag: 'replay' });
    const key = newKey();
    const first = await postCsv(csv, key);
    const second = await postCsv(csv, key);
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.runId).toBe(first.body.runId);
    const other = await postCsv(csvOf(5, { tag: 'other' }), key);
    expect(other.status).toBe(409);
    expect((await listedRunIds()).filter((id) => id === first.body.runId)).toHaveLength(1);
    await withdraw(first.body.runId);
  });

  it('flags the same file under another key as a probable duplicate run', async () => {
    const csv = csvOf(3, { tag: 'dup-file' });
    const first = await postCsv(csv);
    const before = (await listedRunIds()).length;
    const again = await postCsv(csv);
    expect(again.status).toBe(409);
    expect(again.body.errors).toEqual([
      { path: `run ${first.body.runId}`, message: expect.stringContaining('probably a duplicate run') },
    ]);
    expect((await listedRunIds()).length).toBe(before);
    const acknowledged = await postCsv(csv, newKey(), 'alice', 'acknowledgeDuplicates=true');
    expect(acknowledged.status).toBe(202);
    expect(acknowledged.body.acknowledged).toEqual({
      duplicateLines: 0,
      duplicateRunIds: [first.body.runId],
    });
    await withdraw(first.body.runId);
    await withdraw(acknowledged.body.runId);
  });

  it('accepts exactly one of the same file posted twice at once under two keys; the other is a probable duplicate', async () => {
    const csv = csvOf(120, { tag: 'race-file' });
    const before = (await listedRunIds()).length;
    const answers = await Promise.all([postCsv(csv), postCsv(csv)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
    const accepted = answers.find((answer) => answer.status === 202);
    const refused = answers.find((answer) => answer.status === 409);
    expect(refused?.body.errors).toEqual([
      { path: `run ${accepted?.body.runId}`, message: expect.stringContaining('probably a duplicate run') },
    ]);
    expect((await listedRunIds()).length).toBe(before + 1);
    await withdraw(accepted?.body.runId);
  });

  it('asks for duplicate lines (same account, same amount) to be acknowledged', async () => {
    const lines = `${HEADER}\nd-1,5000,058,0123456789,Ada,pay\nd-2,5000,058,0123456789,Ada,pay\n`;
    const refused = await postCsv(lines);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({ path: 'rows 1, 2' });
    const json = await call(h.api, {
      method: 'POST',
      path: '/payout-runs',
      headers: { 'idempotency-key': newKey() },
      body: {
        acknowledgeDuplicates: true,
        rows: [
          {
            reference: 'j-1',
            amountNaira: '50.00',
            bankCode: '058',
            accountNumber: '0123456789',
            accountName: 'Ada',
            narration: 'pay',
          },
          {
            reference: 'j-2',
            amountNaira: 50,
            bankCode: '058',
            accountNumber: '0123456789',
            accountName: 'Ada',
            narration: 'pay',
          },
        ],
      },
    });
    expect(json.status).toBe(202);
    expect(json.body.totalKobo).toBe(10_000);
  });
});

// Each test drives the sweep, the workers, the reconciler and the table's stream for up to ten ticks: 3 to 6 s
// alone, 14 s with both cores busy. The timeout is a guard against a hang, not a measure.
describe("a payout run's end", { timeout: 90_000 }, () => {
  // The table's stream, read as publish-domain-events reads it in AWS: the runs' bookkeeping, then the events.
  const bus = new InProcessEventBus();
  const runEvents: PayoutRunEvent[] = [];
  bus.subscribe((event) => {
    if (isPayoutRunEvent(event)) runEvents.push(event);
  });
  const delivered: Parameters<typeof publishStreamBatch>[0][number][] = [];
  let relay: StreamRelay;
  let dynamoDb: DynamoDBClient;
  const bookkeeper = () => runEndBookkeeperOf(h.runtime.dynamoDb, h.runtime.tableName, h.logger);
  beforeAll(async () => {
    dynamoDb = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
    relay = await StreamRelay.forTable(dynamoDb, inject('dynamoDbEndpoint'), h.tableName, bus, h.logger, {
      bookkeeper: bookkeeper(),
      tap: (records) => delivered.push(...records),
    });
  });
  afterAll(async () => {
    await relay.stop();
    dynamoDb.destroy();
  });
  const relayStream = () => servedBy('publish-domain-events', () => relay.pollOnce());
  const eventsOf = (runId: string) => runEvents.filter((event) => event.detail.runId === runId);
  const runItem = async (runId: string) => {
    const { Item } = await dynamoDb.send(
      new GetItemCommand({
        TableName: h.tableName,
        Key: { pk: { S: `PAYOUT_RUN#${runId}` }, sk: { S: 'RUN' } },
        ConsistentRead: true,
      }),
    );
    return Item && unmarshall(Item);
  };
  /** Ticks of the sweep, workers and reconciler, each followed by the stream, until the run's end is recorded. */
  async function untilEnded(runId: string, materialiser = materialise) {
    for (let tick = 0; tick < 10; tick++) {
      await materialiser();
      await sweep();
      await reconcile();
      await relayStream();
      if ((await runItem(runId))?.endedAt !== undefined) return;
      clock.advance(10 * 60_000);
    }
  }

  it('ends a run whose rows all succeed `completed`, with one Payout Run Completed, though the stream delivers records twice', async () => {
    const created = await postCsv(csvOf(5, { tag: 'ends-ok', amount: 40_000 }));
    const runId = created.body.runId;
    await untilEnded(runId);
    const ended = await getRun(runId);
    expect(ended).toMatchObject({ status: 'completed', endedAt: (await runItem(runId))?.endedAt });
    expect(ended.endedAt).toEqual(expect.any(String));
    // Every record again (the stream delivers at least once): no row is counted twice, the run ends once.
    const again = delivered.filter((record) => JSON.stringify(record).includes(runId));
    await servedBy('publish-domain-events', () =>
      publishStreamBatch(
        again.filter((record) => !JSON.stringify(record.dynamodb?.NewImage).includes('endedAt')),
        bus,
        h.logger,
        undefined,
        bookkeeper(),
      ),
    );
    await relayStream();
    const item = await runItem(runId);
    expect(item).toMatchObject({ state: 'completed', endedRows: 5, ended_succeeded: 5 });
    const events = eventsOf(runId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      detailType: 'Payout Run Completed',
      detail: {
        eventId: `run:${runId}:ended`,
        status: 'completed',
        count: 5,
        counts: { succeeded: 5 },
        totalKobo: 5 * 40_000 + 15,
        sentKobo: 5 * 40_000 + 15,
        failedKobo: 0,
      },
    });
    expect(PayoutRunEventDetailSchema.safeParse(events[0]?.detail).success).toBe(true);
    // The end's own record delivered again publishes the same eventId, which consumers drop.
    await publishStreamBatch(
      again.filter((record) => JSON.stringify(record.dynamodb?.NewImage).includes('endedAt')),
      bus,
      h.logger,
    );
    expect(new Set(eventsOf(runId).map((event) => event.detail.eventId))).toEqual(
      new Set([`run:${runId}:ended`]),
    );
    expect(JSON.stringify(events)).not.toMatch(/\d{10}/);
  });

  it('ends a run with a row that failed (refused by the limits in force) `needs_attention`, with one Payout Run Needs Attention', async () => {
    const csv = `${HEADER}\nfail-1,50000,058,0223456789,Ada Obi,pay\nfail-2,9000000,058,0223456788,Bola Ade,pay\n`;
    const created = await postCsv(csv);
    const runId = created.body.runId;
    expect(created.body.status).toBe('materialising');
    // The per-payout maximum is lowered below the second row after the run was accepted: that row fails.
    const config = h.runtime.payouts.ctx.config as { maxInstructionKobo: number };
    const before = config.maxInstructionKobo;
    config.maxInstructionKobo = 1_000_000;
    try {
      await untilEnded(runId);
    } finally {
      config.maxInstructionKobo = before;
    }
    expect(await getRun(runId)).toMatchObject({
      status: 'needs_attention',
      counts: { succeeded: 1, refused: 1 },
    });
    expect(await runItem(runId)).toMatchObject({ state: 'needs_attention', endedRows: 2 });
    const events = eventsOf(runId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      detailType: 'Payout Run Needs Attention',
      detail: {
        status: 'needs_attention',
        counts: { succeeded: 1, refused: 1 },
        sentKobo: 50_000,
        failedKobo: 9_000_000,
      },
    });
  });

  it('ends a run cancelled before all its rows became payouts: cancelled, its end recorded, the unsent rows counted', async () => {
    const created = await postCsv(csvOf(10, { tag: 'ends-cancel', amount: 50_000 }));
    const runId = created.body.runId;
    await materialise({ rowsPerRun: 4 });
    await sweep(); // the first 4 are sent
    await relayStream();
    const cancelled = await call(h.api, {
      method: 'POST',
      path: `/payout-runs/${runId}/cancel`,
      principal: 'carol',
    });
    expect(cancelled.status).toBe(200);
    await untilEnded(runId);
    const item = await runItem(runId);
    expect(item).toMatchObject({ state: 'cancelled', endedRows: 10, ended_cancelled_unsent: 6 });
    expect(item?.endedAt).toEqual(expect.any(String));
    const events = eventsOf(runId);
    expect(events).toHaveLength(1);
    expect(events[0]?.detail).toMatchObject({
      status: 'cancelled',
      counts: { succeeded: 4, cancelled_unsent: 6 },
    });
    // An ended run is not cancelled again.
    const again = await call(h.api, {
      method: 'POST',
      path: `/payout-runs/${runId}/cancel`,
      principal: 'carol',
    });
    expect(again.status).toBe(409);
  });

  it('creates a run with `payouts runs create --csv` and watches it to its end with `runs show --watch`', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runs-cli-'));
    const file = join(dir, 'june.txt');
    writeFileSync(file, csvOf(3, { tag: 'cli-watch', amount: 70_000 }));
    const server = await serveApiGatewayHandler(h.api, { port: 0 });
    const printed = { out: '' };
    const io = {
      ...cliIo(server.url, printed),
      // Between two reads the run moves on: a sweep tick, the workers, the stream.
      sleep: async () => {
        await materialise();
        await sweep();
        await relayStream();
      },
    };
    try {
      const key = newKey();
      expect(
        await runCli(['--api', server.url, '--json', 'runs', 'create', '--csv', file, '--key', key], io),
      ).toBe(0);
      const runId = JSON.parse(printed.out).runId as string;
      printed.out = '';
      expect(await runCli(['--api', server.url, 'runs', 'show', runId, '--watch'], io)).toBe(0);
      const frames = printed.out.split('\r').filter(Boolean);
      expect(frames[0]).toMatch(/^\[\.{10}\] 0% 0\/3 sent, /);
      expect(frames.at(-1)).toBe('[##########] 100% 3/3 sent, completed\n');
      // The existing words still name the same commands.
      printed.out = '';
      expect(await runCli(['--api', server.url, '--json', 'payout-runs', 'get', runId], io)).toBe(0);
      expect(JSON.parse(printed.out)).toMatchObject({ runId, status: 'completed' });
    } finally {
      await server.close();
    }
  });

  it('ends a run of only refused rows, though the sweep crashed mid-batch', async () => {
    const created = await postCsv(csvOf(12, { tag: 'ends-refused', amount: 60_000 }));
    const runId = created.body.runId;
    // The per-payout maximum is lowered below every row after the run was accepted: each row is refused.
    const config = h.runtime.payouts.ctx.config as { maxInstructionKobo: number };
    const before = config.maxInstructionKobo;
    config.maxInstructionKobo = 1_000;
    try {
      // A sweep that dies after refusing a few rows, before it advanced the run's mark.
      const ledger = h.runtime.payouts;
      let creates = 0;
      const dying = new RunMaterialiser({
        store: new DynamoDbPayoutRunStore(h.runtime.dynamoDb, h.runtime.tableName),
        payouts: {
          get: (id) => ledger.get(id),
          cancel: (id, actor, reason) => ledger.cancel(id, actor, reason),
          create: async (command) => {
            if (++creates === 5) throw new Error('the sweep was cut off');
            return ledger.create(command);
          },
        },
        clock,
      });
      await expect(servedBy('sweep-due-payouts', () => dying.materialiseDue())).rejects.toThrow('cut off');
      await relayStream();
      expect((await runItem(runId))?.endedAt).toBeUndefined();
      await untilEnded(runId);
    } finally {
      config.maxInstructionKobo = before;
    }
    const item = await runItem(runId);
    expect(item).toMatchObject({ state: 'needs_attention', endedRows: 12, ended_refused: 12 });
    expect(eventsOf(runId)).toHaveLength(1);
    expect(eventsOf(runId)[0]).toMatchObject({
      detailType: 'Payout Run Needs Attention',
      detail: { counts: { refused: 12 }, failedKobo: 12 * 60_000 + 78, sentKobo: 0 },
    });
  });
});
