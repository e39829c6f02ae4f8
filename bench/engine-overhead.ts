import { performance } from 'node:perf_hooks';
import { CapacityMeter } from './capacity-meter.js';
import {
  type BenchResult,
  bankTransfer,
  createCommand,
  fixed,
  quick,
  type Row,
  startEngineRig,
} from './support.js';

const PAYOUTS = quick ? 30 : 200;
const WARM_UP = 10;

/**
 * The engine's time per payout over the bare provider call, at zero injected latency, in one run: M sequential
 * `engine.create` + `engine.submit` next to M sequential `client.settlements.instantPayout` calls.
 */
export async function benchEngineOverhead(endpoint: string): Promise<BenchResult> {
  const rig = await startEngineRig(endpoint, { prefix: 'overhead', latencyMs: 0 });
  try {
    const runId = `${process.pid}-${Date.now()}`;
    const raw = () =>
      rig.provider.settlements.instantPayout({
        amount: 150,
        bankCode: '058',
        accountNumber: '0123456789',
        accountName: 'Ada Supplies',
        narration: 'bench raw payout',
      });
    let counter = 0;
    const viaEngine = async () => {
      const { payout } = await rig.engine.create(
        createCommand(bankTransfer(), `overhead-${runId}-${counter++}`),
      );
      const result = await rig.engine.submit(payout.id);
      if (result.kind !== 'sent' || result.outcome !== 'succeeded')
        throw new Error(`engine payout: ${JSON.stringify(result)}`);
    };
    for (let i = 0; i < WARM_UP; i++) {
      await raw();
      await viaEngine();
    }
    const rawMs = await timeSequential(raw);
    const before = rig.meter.snapshot();
    const engineMs = await timeSequential(viaEngine);
    const used = CapacityMeter.diff(before, rig.meter.snapshot());
    const transactMs = used.transactCallMs / PAYOUTS;
    const rows: Row[] = [
      {
        path: 'raw client.settlements.instantPayout',
        'ms/payout': fixed(rawMs, 2),
        'ddb round trips/payout': 0,
        'ddb ms/payout (transactions)': 0,
      },
      {
        path: 'engine.create + engine.submit',
        'ms/payout': fixed(engineMs, 2),
        'ddb round trips/payout': fixed(used.roundTrips / PAYOUTS, 2),
        'ddb ms/payout (transactions)': fixed(transactMs, 2),
      },
      {
        path: 'engine overhead (difference)',
        'ms/payout': fixed(engineMs - rawMs, 2),
        'ddb round trips/payout': fixed(used.roundTrips / PAYOUTS, 2),
        'ddb ms/payout (transactions)': fixed(transactMs, 2),
      },
    ];
    return {
      name: 'engine-overhead',
      title: `Engine overhead per payout at zero provider latency (${PAYOUTS} sequential payouts each)`,
      rows,
      notes: [
        'Both against the same sandbox (latency 0) over loopback, after a warm-up; sequential, so ms/payout is latency, not throughput.',
        'The overhead is the DynamoDB round trips of exactly-once: create (1 TransactWriteItems), load (1 GetItem), claim and record (2 TransactWriteItems); "ddb ms/payout" is the time spent in the three transactions, measured on the client.',
      ],
    };
  } finally {
    await rig.close();
  }
}

/** Mean milliseconds of `task` over PAYOUTS sequential runs. */
async function timeSequential(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < PAYOUTS; i++) await task();
  return (performance.now() - started) / PAYOUTS;
}
