import type { Context } from 'aws-lambda';
import { withLogContext } from '../shared/log-context.js';
import { type Runtime, runtimeFromProcessEnv } from './runtime.js';

/** True until the container's first invocation starts. */
let coldStart = true;

/**
 * Wraps a Lambda handler body: the runtime is built once per container (on first use, so a bad
 * configuration fails the first invocation with the variable named), and the metrics gathered during the
 * invocation are written when it ends, whether it succeeded or threw. Every line it logs carries the request id,
 * the cold start and the function's name (the log context, lib/shared/log-context.ts), as Powertools' would.
 *
 * @example export const handler = withRuntime(async (event: ScheduledEvent, runtime) => payoutEngineOf(runtime).sweep());
 */
export function withRuntime<E, R>(
  body: (event: E, runtime: Runtime, context: Context) => Promise<R>,
): (event: E, context: Context) => Promise<R> {
  return (event, context) => {
    const fields = {
      function_request_id: context.awsRequestId,
      cold_start: coldStart,
      function_name: context.functionName,
    };
    coldStart = false;
    return withLogContext(fields, async () => {
      const runtime = runtimeFromProcessEnv();
      try {
        return await body(event, runtime, context);
      } finally {
        runtime.flushMetrics();
      }
    });
  };
}
