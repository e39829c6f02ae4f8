import type { Logger } from '../shared/logger.js';

export interface LocalScheduler {
  /** Stops scheduling and waits for the runs under way to finish. */
  stop(): Promise<void>;
}

export interface LocalJob {
  readonly name: string;
  readonly run: () => Promise<unknown>;
  /** Run at most this often (like a slower EventBridge schedule); every tick when absent. */
  readonly everyMs?: number;
}

/**
 * Runs each scheduled job every `intervalMs` on a loop of its own, never two runs of one job at once (its next
 * run is planned only after the previous one ended), as the EventBridge schedules of the AWS deployment are
 * independent: a slow job (a reconciler looking payouts up at a rate-limited provider) never holds back another
 * (the sweeper that hands payouts to the workers).
 *
 * @example
 * const scheduler = startLocalScheduler([{ name: 'sweep', run: () => runSweep(engine, 60_000) }], { intervalMs: 2000, logger });
 * await scheduler.stop();
 */
export function startLocalScheduler(
  jobs: readonly LocalJob[],
  options: { intervalMs: number; logger: Logger; now?: () => number },
): LocalScheduler {
  const now = options.now ?? Date.now;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();

  const loop = (job: LocalJob) => {
    let lastRun: number | undefined;
    const runOnce = async () => {
      if (stopped) return;
      if (job.everyMs !== undefined && lastRun !== undefined && now() - lastRun < job.everyMs) return;
      lastRun = now();
      try {
        const report = await job.run();
        options.logger.debug(`${job.name} tick`, { report });
      } catch (error) {
        options.logger.error(`${job.name} tick failed`, {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    };
    const schedule = () => {
      if (stopped) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        const run = runOnce().finally(() => {
          running.delete(run);
          schedule();
        });
        running.add(run);
      }, options.intervalMs);
      timers.add(timer);
    };
    schedule();
  };
  for (const job of jobs) loop(job);
  return {
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await Promise.all([...running]);
    },
  };
}
