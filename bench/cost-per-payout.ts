import { createAndSubmit } from '../lib/payouts/engine/create-and-submit.js';
import { reconcilePayouts } from '../lib/payouts/engine/reconcile-payouts.js';
import { payoutSweeper } from '../lib/payouts/payout-sweeper.js';
import { ManualClock } from '../lib/shared/clock.js';
import { CapacityMeter, type CapacitySnapshot } from './capacity-meter.js';
import { type CostPath, costByPath, type PathCost } from './cost-by-path.js';
import {
  type BenchResult,
  bankTransfer,
  createCommand,
  type EngineRig,
  fixed,
  quick,
  type Row,
  startEngineRig,
} from './support.js';

const PAYOUTS = quick ? 5 : 25;
const START = '2026-03-02T08:00:00.000Z';
/** The happy path as the API and the `Payout Requested` event take it (engine/create-and-submit.ts). */
const HAPPY_STEP = 'create + submit inline (API, events)';

/**
 * DynamoDB round trips and capacity units, and provider calls, per payout: on the happy path (create and submit
 * inline as the API and events do, in one create-and-claim; the two steps settlements and recurrences take; or
 * submit by a sweep) and on the path where the provider's answer is lost
 * (timeout after commit) so the payout becomes `unknown` and a reconciliation pass finds it.
 */
/** What `bench/results/latest.json` reports as `cost`: write units per happy-path payout by AWS's rules. */
export interface CostReport {
  /** Create plus inline submit, per payout: base table, global secondary indexes, and both. */
  readonly happyPathWcu: { readonly base: number; readonly indexes: number; readonly total: number };
  /** Every deployed path that sends money, per payout sent, with where the writes go (bench/cost-by-path.ts). */
  readonly byPath: Record<CostPath, PathCost>;
}

export async function benchCostPerPayout(endpoint: string): Promise<BenchResult & { cost: CostReport }> {
  const rows: Row[] = [];
  const clock = new ManualClock(START);
  const happy = await startEngineRig(endpoint, { prefix: 'cost-happy', clock, meterIndexes: true });
  try {
    rows.push(
      await measure(happy, HAPPY_STEP, async () => {
        for (let i = 0; i < PAYOUTS; i++) {
          await expectSubmitted(
            createAndSubmit(happy.engine.ctx, createCommand(bankTransfer(), `cost-a-${i}`)),
          );
        }
      }),
    );
    const ids: string[] = [];
    rows.push(
      await measure(happy, 'create (two steps: recurrence, fallbacks)', async () => {
        for (let i = 0; i < PAYOUTS; i++) {
          const { payout } = await happy.engine.create(createCommand(bankTransfer(), `cost-c-${i}`));
          ids.push(payout.id);
        }
      }),
    );
    rows.push(
      await measure(happy, 'submit after create (two steps)', async () => {
        for (const id of ids) await expectOutcome(happy.engine.submit(id), 'succeeded');
      }),
    );
    for (let i = 0; i < PAYOUTS; i++) await happy.engine.create(createCommand(bankTransfer(), `cost-b-${i}`));
    rows.push(
      await measure(happy, 'submit by sweep (happy)', async () => {
        const report = await payoutSweeper(happy.engine).sweep({ limit: PAYOUTS, concurrency: 4 });
        if (report.outcomes.succeeded !== PAYOUTS) throw new Error(`sweep: ${JSON.stringify(report)}`);
      }),
    );
    rows.push(
      await measure(happy, 'replay of create (same key)', async () => {
        for (let i = 0; i < PAYOUTS; i++) {
          const { replayed } = await createAndSubmit(
            happy.engine.ctx,
            createCommand(bankTransfer(), `cost-a-${i}`),
          );
          if (!replayed) throw new Error('expected a replay');
        }
      }),
    );
  } finally {
    await happy.close();
  }

  // What-if: the same happy path priced as if every GSI were KEYS_ONLY. It reads no index, so its writes are the
  // same on either table; the reads such a design would add are in the read-paths benchmark.
  const keysOnly = await startEngineRig(endpoint, {
    prefix: 'cost-keys-only',
    clock,
    meterIndexes: true,
    priceIndexesAs: 'KEYS_ONLY',
  });
  let whatIf: Row;
  try {
    whatIf = await measure(keysOnly, 'what-if: happy path with every GSI KEYS_ONLY', async () => {
      for (let i = 0; i < PAYOUTS; i++) {
        await expectSubmitted(
          createAndSubmit(keysOnly.engine.ctx, createCommand(bankTransfer(), `cost-k-${i}`)),
        );
      }
    });
  } finally {
    await keysOnly.close();
  }

  const lost = await startEngineRig(endpoint, { prefix: 'cost-unknown', clock, meterIndexes: true });
  try {
    rows.push(
      await measure(lost, 'create + submit inline, answer lost (unknown)', async () => {
        for (let i = 0; i < PAYOUTS; i++) {
          await lost.sandbox.injectFault({
            path: '/settlement/instant/payout',
            fault: 'timeout-after-commit',
          });
          const created = createAndSubmit(lost.engine.ctx, createCommand(bankTransfer(), `cost-u-${i}`));
          await expectSubmitted(created, 'unknown');
        }
      }),
    );
    clock.advance(61_000);
    rows.push(
      await measure(lost, 'reconcile (found, succeeded)', async () => {
        const report = await reconcilePayouts(lost.engine.ctx, { limit: PAYOUTS });
        if (report.succeeded !== PAYOUTS) throw new Error(`reconcile: ${JSON.stringify(report)}`);
      }),
    );
  } finally {
    await lost.close();
  }
  const happyPath = totalOf(rows, 'TOTAL happy path (create + inline submit, as the API does)', [HAPPY_STEP]);
  const byPath = await costByPath(endpoint, PAYOUTS);
  const cost: CostReport = {
    happyPathWcu: {
      base: Number(happyPath['WCU base']),
      indexes: Number(happyPath['WCU indexes']),
      total: Number(happyPath['WCU total']),
    },
    byPath,
  };
  const pathRows: Row[] = Object.entries(byPath).map(([path, figures]) => ({
    step: `by path: ${path}`,
    'WCU base': figures.base,
    'WCU indexes': figures.indexes,
    'WCU total': figures.total,
    'pacer writes (WCU)': figures.pacerWcu,
    'where (writes, base + indexes WCU)': Object.entries(figures.byItem)
      .map(([item, spent]) => `${item} ${spent.writes} (${spent.base} + ${spent.indexes})`)
      .join(', '),
  }));
  return {
    name: 'cost-per-payout',
    cost,
    title: `Cost per payout (mean over ${PAYOUTS} payouts per step)`,
    rows: [
      ...rows,
      happyPath,
      totalOf(rows, 'TOTAL two steps (create, then submit)', [
        'create (two steps: recurrence, fallbacks)',
        'submit after create (two steps)',
      ]),
      totalOf(rows, 'TOTAL unknown-then-reconciled', [
        'create + submit inline, answer lost (unknown)',
        'reconcile (found, succeeded)',
      ]),
      whatIf,
      ...pathRows,
    ],
    notes: [
      "by path: every deployed path that sends money, through the runtime and job functions the Lambdas run (bench/cost-by-path.ts), per payout sent: apiInline (POST /payouts, sent in the request), workerFromQueue (created pending, the sweeper's tick enqueues, the submit-payouts workers send), scheduledRelease (scheduleAt: held, released by the tick, sent by the workers), recurringOccurrence (the tick materialises a rule's due occurrence, the workers send it; the rule's creation is not counted), settlement (the poll decides a provider settlement and hands its payout to the workers). The pacer (the shared provider rate limiter the workers reserve send slots on) is reported apart and not in the total.",
      'RCU: what DynamoDB Local reports with ReturnConsumedCapacity TOTAL, summed by SDK middleware on the client.',
      'WCU base: computed from each write request as AWS bills it: in a TransactWriteItems 2 per KB (rounded up) per item, a PutItem 1 per KB; Put sizes from the marshalled item, Update/ConditionCheck as 1 KB (the cap counter and the controls item are tiny).',
      "WCU indexes: the global secondary index writes AWS bills for each written item, from the table's definition (createTableInput: keys and projections) and the item's image before and after the write (read by the meter on a client of its own): 1 per KB of the index entry to put an item into an index or take it out, 2 when its index key changes (delete + put), 1 when only projected attributes change, none when nothing projected changed or the item is in no index.",
      'WCU total: base + indexes.',
      'what-if: the happy path again on a table of its own, its index writes priced as if gsi1, gsi2 and gsi3 projected KEYS_ONLY (every reader would then fetch the items after its Query: see read-paths).',
      "WCU reported: what DynamoDB Local answers, for reference only: for a transaction it reports a single item's units however many items it wrote (a 1-item and a 10-item transaction both report 8), and for a PutItem it counts the index writes in, so it is not a cost.",
      "By the sweep, claims that coincide are group-committed (several payouts per transaction, one cap update per batch), so round trips and cap-counter writes per payout fall below the inline path's; outcomes are recorded one conditional PutItem each (1 unit, where a transaction item costs 2).",
      "Audit events ride on the items a write writes anyway (docs/data-model.md, \"Audit events\"): the creation's on the idempotency key item, each later one on the payout item while it stays under 1 KB; the two steps' outcome does not fit beside the claim's event, so it moves both to an audit item (a transaction).",
      'provider calls: requests the sandbox received (stats().requests); the happy path must be exactly 1 per payout.',
      'create + submit inline: engine.createAndSubmit, as POST /payouts and Payout Requested call it: the payout is created already claimed (key item with both audit events, payout and the daily-cap reservation in one transaction), the pause is read, the provider called, the outcome recorded. The two steps (create pending, then submit) are what recurring payouts, the settlements the event and the poll decide (their payouts are handed to the submission workers, with the decision in the creating transaction) and the fallbacks of createAndSubmit take; a settlement paid by POST /instant-settlements is created already claimed, with its decision.',
      'The unknown path: the sandbox commits the payout and drops the connection (timeout-after-commit); the payout becomes unknown and is never resent; the reconciler lists the wallet DEBIT records in the window and finds its marker.',
    ],
  };
}

async function measure(rig: EngineRig, step: string, work: () => Promise<void>): Promise<Row> {
  const before = rig.meter.snapshot();
  const callsBefore = await rig.providerCalls();
  await work();
  return costRow(
    step,
    CapacityMeter.diff(before, rig.meter.snapshot()),
    (await rig.providerCalls()) - callsBefore,
  );
}

function costRow(step: string, used: CapacitySnapshot, providerCalls: number): Row {
  const per = (value: number) => fixed(value / PAYOUTS, 2);
  return {
    step,
    'ddb round trips': per(used.roundTrips),
    RCU: per(used.readUnits),
    'WCU base': per(used.awsWriteUnits),
    'WCU indexes': per(used.indexWriteUnits),
    'WCU total': per(used.awsWriteUnits + used.indexWriteUnits),
    'WCU reported': per(used.writeUnits),
    'provider calls': per(providerCalls),
    operations: Object.entries(used.byCommand)
      .map(([name, count]) => `${name.replace(/Command$/, '')} ${fixed(count / PAYOUTS, 2)}`)
      .join(', '),
  };
}

type NumericColumn =
  | 'ddb round trips'
  | 'RCU'
  | 'WCU base'
  | 'WCU indexes'
  | 'WCU total'
  | 'WCU reported'
  | 'provider calls';
const NUMERIC: readonly NumericColumn[] = [
  'ddb round trips',
  'RCU',
  'WCU base',
  'WCU indexes',
  'WCU total',
  'WCU reported',
  'provider calls',
];

function sumRows(rows: readonly Row[]): Row {
  const sum: Row = {};
  for (const column of NUMERIC) {
    sum[column] = fixed(
      rows.reduce((total, row) => total + Number(row[column] ?? 0), 0),
      2,
    );
  }
  return sum;
}

function totalOf(rows: readonly Row[], step: string, steps: readonly string[]): Row {
  return { step, ...sumRows(rows.filter((row) => steps.includes(String(row.step)))) };
}

/** A create-and-submit that created and sent its payout, with this outcome. */
async function expectSubmitted(
  result: Promise<{ replayed: boolean; submitted?: { kind: string; outcome?: string } }>,
  outcome = 'succeeded',
) {
  const { replayed, submitted } = await result;
  if (replayed || !submitted) throw new Error(`expected a created and submitted payout, got ${replayed}`);
  await expectOutcome(Promise.resolve(submitted), outcome);
}

async function expectOutcome(result: Promise<{ kind: string; outcome?: string }>, outcome: string) {
  const settled = await result;
  if (settled.kind !== 'sent' || settled.outcome !== outcome) {
    throw new Error(`expected ${outcome}, got ${JSON.stringify(settled)}`);
  }
}
