import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import {
  bankTransfer,
  command,
  type EngineHarness,
  ledgerEntriesOf,
  startEngineHarness,
} from '../support/engine-harness.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await startEngineHarness({ maxLatenessMs: 60 * 60_000 });
});
afterAll(async () => h.close());

const inMinutes = (minutes: number) => new Date(h.clock.now().getTime() + minutes * 60_000).toISOString();

describe('one-off scheduled payouts', () => {
  it('waits until its time, then pays once even when two sweeps run at once', async () => {
    const { payout } = await h.engine.create(
      command(bankTransfer(45_000, { scheduleAt: inMinutes(30) }), 'sched-1'),
    );
    expect(payout.status).toBe(PayoutStatus.Scheduled);

    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Scheduled);

    h.clock.advance(30 * 60_000);
    await Promise.all([payoutSweeper(h.engine).sweep(), payoutSweeper(h.engine).sweep()]);
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('can be cancelled until its time', async () => {
    const { payout } = await h.engine.create(
      command(bankTransfer(45_000, { scheduleAt: inMinutes(10) }), 'sched-2'),
    );
    await h.engine.cancel(payout.id, { id: 'bob', kind: 'user' });
    h.clock.advance(10 * 60_000);
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Cancelled);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
  });

  it('marks a payout found after an outage longer than the allowed lateness as missed, and reports it', async () => {
    const { payout } = await h.engine.create(
      command(bankTransfer(45_000, { scheduleAt: inMinutes(5) }), 'sched-3'),
    );
    h.clock.advance(5 * 60_000 + 61 * 60_000);
    const report = await payoutSweeper(h.engine).sweep();
    expect(report.missed).toBeGreaterThanOrEqual(1);
    const missed = await h.engine.get(payout.id);
    expect(missed?.status).toBe(PayoutStatus.Missed);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
    expect(
      h.logger.entries.some(
        (entry) => entry.message === 'scheduled payout missed' && entry.fields?.payoutId === payout.id,
      ),
    ).toBe(true);
  });

  it('still pays a payout found late but within the allowed lateness', async () => {
    const { payout } = await h.engine.create(
      command(bankTransfer(45_000, { scheduleAt: inMinutes(5) }), 'sched-4'),
    );
    h.clock.advance(5 * 60_000 + 59 * 60_000);
    await payoutSweeper(h.engine).sweep();
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
  });
});
