import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalScheduler } from '../../lib/local/scheduler.js';
import { silentLogger } from '../../lib/shared/logger.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the local scheduler', () => {
  it('runs every job each tick unless it asks to run less often, and never overlaps two runs of a job', async () => {
    vi.useFakeTimers();
    let clock = 0;
    const runs = { fast: 0, slow: 0 };
    let inFlight = 0;
    let maxInFlight = 0;
    const scheduler = startLocalScheduler(
      [
        {
          name: 'fast',
          run: async () => {
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            runs.fast++;
            await new Promise((resolve) => setTimeout(resolve, 1_500));
            inFlight--;
          },
        },
        { name: 'slow', run: async () => void runs.slow++, everyMs: 10_000 },
      ],
      { intervalMs: 1_000, logger: silentLogger, now: () => clock },
    );
    for (let second = 0; second < 25; second++) {
      clock += 1_000;
      await vi.advanceTimersByTimeAsync(1_000);
    }
    await scheduler.stop();
    expect(runs.fast).toBeGreaterThanOrEqual(9);
    expect(maxInFlight).toBe(1);
    // The slow job ran on the first tick and then at most once per 10 s of scheduler time.
    expect(runs.slow).toBeGreaterThanOrEqual(2);
    expect(runs.slow).toBeLessThanOrEqual(3);
  });

  it('runs the sweeper on time while another job is slow, as independent EventBridge schedules do', async () => {
    vi.useFakeTimers();
    let sweeps = 0;
    const scheduler = startLocalScheduler(
      [
        { name: 'sweep', run: async () => void sweeps++ },
        { name: 'reconcile', run: () => new Promise((resolve) => setTimeout(resolve, 60_000)) },
      ],
      { intervalMs: 1_000, logger: silentLogger },
    );
    await vi.advanceTimersByTimeAsync(10_500);
    expect(sweeps).toBeGreaterThanOrEqual(9);
    const stopped = scheduler.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    await stopped;
  });
});
