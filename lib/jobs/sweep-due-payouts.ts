import { enqueuePendingJobs } from '../bulk-corrections/index.js';
import { RUN_STOP_STARTING_BEFORE_DEADLINE_MS } from '../payout-runs/index.js';
import { payoutSweeper } from '../payouts/index.js';
import {
  correctionJobStoreOf,
  type Runtime,
  recurrenceSweepOf,
  refundSenderOf,
  runMaterialiserOf,
  sendingEngineOf,
  submissionsOf,
  traceDynamoDbCalls,
} from '../runtime/index.js';
import { traceHttpCalls } from '../shared/http-call-tracing.js';
import { logTick } from '../shared/logger.js';
import { inSpan, SpanKinds } from '../shared/tracing.js';
import { runDueDispatch, runDueSweep } from './scheduled.js';

/**
 * The every-minute tick: recurring payouts materialise their due occurrences, due scheduled payouts are
 * released and pending ones handed to the submission queue (the `submit-payouts` workers send them), and
 * refunds recorded but never sent go out; correction jobs whose work the queue refused are handed over again.
 * Without a queue (SUBMIT_QUEUE_URL unset: a runtime built outside a stack, which always deploys the workers
 * with the sweeper) it submits them itself.
 *
 * The tick is one span (`sweep due payouts`), its table calls and provider sends (the refunds') its children;
 * a payout it hands over keeps its own trace, carried by the message from the request that created it.
 */
export function sweepDuePayouts(runtime: Runtime, remainingMs: number) {
  traceDynamoDbCalls(runtime);
  traceHttpCalls();
  return inSpan('sweep due payouts', { kind: SpanKinds.internal }, async (span) => {
    const report = await sweepOnce(runtime, remainingMs);
    span?.setAttributes({
      'sweep.released': report.payouts.released,
      'sweep.enqueued': 'enqueued' in report.payouts ? report.payouts.enqueued : 0,
      'sweep.left_over': report.payouts.leftOver,
    });
    return report;
  });
}

async function sweepOnce(runtime: Runtime, remainingMs: number) {
  const parts = {
    engine: payoutSweeper(sendingEngineOf(runtime)),
    recurrences: recurrenceSweepOf(runtime),
    refunds: refundSenderOf(runtime),
  };
  const submissions = submissionsOf(runtime);
  // Payout runs' rows become payouts first, a tick and a half of the fleet's sending shared by the runs
  // (docs/payout-runs.md, "Fairness"), so this tick's dispatch already sends them, by due time with the rest.
  const runs = await runMaterialiserOf(runtime).materialiseDue({
    stopStartingAt: Date.now() + remainingMs - RUN_STOP_STARTING_BEFORE_DEADLINE_MS,
    ...(runtime.env.RUN_ROWS_PER_TICK && { rowsInAll: runtime.env.RUN_ROWS_PER_TICK }),
  });
  const report = submissions
    ? await runDueDispatch({ ...parts, submissions, ...pendingCorrectionsOf(runtime) }, remainingMs, {
        // The stage's per-tick maximum (infra/config/submission-sizing.ts); unbounded when unset.
        ...(runtime.env.SUBMIT_MAX_ENQUEUE_PER_TICK && {
          maxEnqueued: runtime.env.SUBMIT_MAX_ENQUEUE_PER_TICK,
        }),
      })
    : await runDueSweep(parts, remainingMs);
  logTick(runtime.logger, 'sweep finished', { ...report, runs });
  return { ...report, runs };
}

/** The sweeper's hand-over of correction jobs the queue refused, where correction jobs are queued. */
function pendingCorrectionsOf(runtime: Runtime) {
  const queue = submissionsOf(runtime);
  if (!queue) return {};
  return {
    pendingCorrections: (stopStartingAt: number) =>
      enqueuePendingJobs(
        {
          store: correctionJobStoreOf(runtime),
          queue,
          clock: runtime.payouts.ctx.clock,
          logger: runtime.logger,
        },
        { stopStartingAt },
      ),
  };
}
