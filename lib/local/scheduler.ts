import type { Logger } from '../shared/logger.js';

export interface LocalScheduler {
  /** Stops scheduling and waits for a running tick to finish. */
  stop(): Promise<void>;
}

/**
 * Runs the scheduled jobs every `intervalMs`, never two ticks at once: the next tick is planned only after
 * the previous one ended. It stands in for the EventBridge schedules of the AWS deployment.
 *
 * @example
 * const scheduler = startLocalScheduler([{ name: 'sweep', run: () => runSweep(engine, 60_000) }], { intervalMs: 2000, logger });
 * await scheduler.stop();
 */
export interface LocalJob {
  readonly name: string;
  readonly run: () => Promise<unknown>;
  /** Run at most this often (like a slower EventBridge schedule); every tick when absent. */
  readonly everyMs?: number;
}

export function startLocalScheduler(
  jobs: readonly LocalJob[],
  options: { intervalMs: number; logger: Logger; now?: () => number },
): LocalScheduler {
  const now = options.now ?? Date.now;
  const lastRun = new Map<string, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const tick = async () => {
    for (const job of jobs) {
      if (stopped) return;
      const previous = lastRun.get(job.name);
      if (job.everyMs !== undefined && previous !== undefined && now() - previous < job.everyMs) continue;
      lastRun.set(job.name, now());
      try {
        const report = await job.run();
        options.logger.debug(`${job.name} tick`, { report });
      } catch (error) {
        options.logger.error(`${job.name} tick failed`, {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(() => {
        running = undefined;
        schedule();
      });
    }, options.intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
