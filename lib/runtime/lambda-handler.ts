import type { Context } from 'aws-lambda';
import { type Runtime, runtimeFromProcessEnv } from './runtime.js';

/**
 * Wraps a Lambda handler body: the runtime is built once per container (on first use, so a bad
 * configuration fails the first invocation with the variable named), and the metrics gathered during the
 * invocation are written when it ends, whether it succeeded or threw.
 *
 * @example export const handler = withRuntime(async (event: ScheduledEvent, runtime) => payoutEngineOf(runtime).sweep());
 */
export function withRuntime<E, R>(
  body: (event: E, runtime: Runtime, context: Context) => Promise<R>,
): (event: E, context: Context) => Promise<R> {
  return async (event, context) => {
    const runtime = runtimeFromProcessEnv();
    try {
      return await body(event, runtime, context);
    } finally {
      runtime.flushMetrics();
    }
  };
}
