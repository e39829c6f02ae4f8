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
export function startLocalScheduler(
  jobs: readonly { name: string; run: () => Promise<unknown> }[],
  options: { intervalMs: number; logger: Logger },
): LocalScheduler {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const tick = async () => {
    for (const job of jobs) {
      if (stopped) return;
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
