import type { Payout } from '../lib/payouts/model.js';
import { payoutSweeper } from '../lib/payouts/payout-sweeper.js';
import { toPayoutItem } from '../lib/payouts/store/item-codec.js';
import { ManualClock } from '../lib/shared/clock.js';
import { BatchWriteCommand, DocumentClient } from '../lib/shared/document-client.js';
import { ulid } from '../lib/shared/ids.js';
import { CapacityMeter } from './capacity-meter.js';
import {
  type BenchResult,
  bankTransfer,
  createCommand,
  type EngineRig,
  fixed,
  forEachConcurrently,
  quick,
  type Row,
  startEngineRig,
} from './support.js';

const DUE = quick ? 20 : 50;
const NOT_YET_DUE = quick ? [200, 2_000] : [1_000, 10_000];
const START = '2026-03-02T08:00:00.000Z';
const BATCH = 25;
const MAX_BATCH_ATTEMPTS = 10;

/**
 * Read units of one sweep with the same K payouts due while the table holds 10x more scheduled payouts that
 * are not due yet. The work-queue index keys due work by `<dueAt>#<id>`, so the sweep's Query stops at now.
 */
export async function benchSweepScaling(endpoint: string): Promise<BenchResult> {
  const rows: Row[] = [];
  for (const notYetDue of NOT_YET_DUE) rows.push(await runCase(endpoint, notYetDue));
  const first = Number(rows[0]?.['query RCU'] ?? 0);
  for (const row of rows) row['RCU ratio'] = fixed(Number(row['query RCU']) / first, 3);
  return {
    name: 'sweep-scaling',
    title: `Sweep cost vs table size (${DUE} due, not-yet-due grows 10x)`,
    rows,
    notes: [
      'query RCU: read units DynamoDB Local reports for the Query calls of one sweep (scheduled-and-due, then pending), nothing else; RCU ratio against the first row must stay near 1.',
      'The due payouts are created through engine.create with a scheduleAt 1 min ahead; the not-yet-due ones (scheduleAt a day or more ahead, in the same work-queue partition) are batch-written as items built with the store codec toPayoutItem, because 10,000 engine.create calls would dominate the run.',
      'items returned: payouts the two Queries returned (each due payout twice: released, then submitted); none of the not-yet-due ones.',
    ],
  };
}

async function runCase(endpoint: string, notYetDue: number): Promise<Row> {
  const clock = new ManualClock(START);
  const rig = await startEngineRig(endpoint, { prefix: `sweep-${notYetDue}`, clock });
  try {
    const dueAt = new Date(clock.now().getTime() + 60_000).toISOString();
    let template: Payout | undefined;
    for (let i = 0; i < DUE; i++) {
      const { payout } = await rig.engine.create(
        createCommand(bankTransfer({ scheduleAt: dueAt }), `sweep-due-${notYetDue}-${i}`),
      );
      template ??= payout;
    }
    if (!template) throw new Error('no payout created');
    await seedNotYetDue(rig, template, notYetDue);
    clock.advance(120_000);

    let queryUnits = 0;
    let itemsRead = 0;
    rig.meter.filter = (commandName) => commandName === 'QueryCommand';
    const before = rig.meter.snapshot();
    const report = await payoutSweeper(rig.engine).sweep({ limit: 200, concurrency: 8 });
    const used = CapacityMeter.diff(before, rig.meter.snapshot());
    rig.meter.filter = undefined;
    queryUnits = used.readUnits;
    itemsRead = report.released + report.missed + report.submitted + report.skipped;
    if (report.released !== DUE || report.submitted !== DUE) {
      throw new Error(`sweep did not release and submit every due payout: ${JSON.stringify(report)}`);
    }
    return {
      'not yet due': notYetDue,
      due: DUE,
      'table items': notYetDue + DUE,
      'queries per sweep': used.roundTrips,
      'items returned': itemsRead,
      'query RCU': queryUnits,
    };
  } finally {
    await rig.close();
  }
}

/** Copies of a scheduled payout, due a day and more from now, written 25 to a BatchWriteItem. */
async function seedNotYetDue(rig: EngineRig, template: Payout, count: number): Promise<void> {
  const doc = DocumentClient.from(rig.dynamoDb);
  const base = new Date(template.createdAt).getTime() + 24 * 60 * 60_000;
  const batches = Math.ceil(count / BATCH);
  await forEachConcurrently(batches, 8, async (batch) => {
    const items = [];
    for (let i = batch * BATCH; i < Math.min(count, (batch + 1) * BATCH); i++) {
      const id = ulid(new Date(template.createdAt));
      const payout: Payout = {
        ...template,
        id,
        idempotencyKey: `sweep-later-${i}`,
        scheduleAt: new Date(base + i * 1000).toISOString(),
      };
      items.push({ PutRequest: { Item: toPayoutItem(payout) } });
    }
    let pending: typeof items = items;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error('BatchWriteItem kept returning unprocessed items');
      const result = await doc.send(new BatchWriteCommand({ RequestItems: { [rig.tableName]: pending } }));
      pending = (result.UnprocessedItems?.[rig.tableName] ?? []) as typeof items;
    }
  });
}
