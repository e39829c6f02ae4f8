import type { PendingEnqueueReport } from '../bulk-corrections/index.js';
import {
  type DispatchReport,
  type PayoutEngine,
  type PayoutSweeper,
  type ReconcileReport,
  reconcilePayouts,
  type SubmissionQueue,
  type SweepReport,
} from '../payouts/index.js';
import type {
  ProviderScheduleService,
  ProviderScheduleSource,
  SyncRun,
} from '../provider-schedules/index.js';
import type { RecurrenceService, RecurrenceSweepReport } from '../recurrence/index.js';
import type { RefundSender } from '../refunds/index.js';

/** Start no new payout this long before the invocation's deadline, so none is cut off mid-call. */
export const STOP_STARTING_BEFORE_DEADLINE_MS = 20_000;

/**
 * The sweep starts no refund with less than this left: one refund's claim (and the read after a lost answer, or the
 * refunded total's read and the refusal's write), the provider call abandoned at REFUND_SEND_DEADLINE_MS, and the
 * recording (and its read after a lost answer), each call to its deadline (test/infra/handler-limits.test.ts). Cut
 * off mid-call, a refund would stay `sending` until its lease ends and then wait for a person as `unknown`. The
 * sweep's 2-minute timeout leaves 30 s to start refunds, dozens at the provider's usual pace.
 */
export const REFUND_STOP_STARTING_BEFORE_DEADLINE_MS = 90_000;

/**
 * The reconciler starts no payout with less than this left: one decision (its look-ups, each abandoned at
 * `LOOKUP_DEADLINE_MS`, and its transition) and the pass's gauges, each call to its deadline
 * (test/infra/handler-limits.test.ts). Its 2-minute timeout leaves 55 s to start decisions, hundreds at the
 * provider's usual pace; what is left is due again at the next pass.
 */
export const RECONCILE_STOP_STARTING_BEFORE_DEADLINE_MS = 65_000;

/**
 * The dispatch starts no page of the work queue with less than this left: a page is a query and up to 50
 * SendMessageBatch calls, each to its deadline at worst (test/infra/handler-limits.test.ts).
 */
export const DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS = 65_000;

/**
 * One tick of the due-payout sweeper, as the EventBridge schedule (AWS) and the local scheduler run it.
 * `remainingMs` is what the invocation has left (Lambda's `getRemainingTimeInMillis()`).
 */
export function runSweep(
  engine: Pick<PayoutSweeper, 'sweep'>,
  remainingMs: number,
  now = Date.now(),
): Promise<SweepReport> {
  return engine.sweep({ stopStartingAt: now + remainingMs - STOP_STARTING_BEFORE_DEADLINE_MS });
}

/** One reconciliation pass, as the EventBridge schedule and the local scheduler run it. */
export function runReconcile(
  engine: PayoutEngine,
  remainingMs?: number,
  now = Date.now(),
): Promise<ReconcileReport> {
  return reconcilePayouts(
    engine.ctx,
    remainingMs === undefined
      ? {}
      : { stopStartingAt: now + remainingMs - RECONCILE_STOP_STARTING_BEFORE_DEADLINE_MS },
  );
}

/**
 * One tick of the every-minute schedule: recurring payouts materialise their due occurrences (as `scheduled`
 * payouts), the engine releases and submits what is due, and refunds recorded but never sent go out after a
 * conditional claim. The three read different work queues, so they run at once: a tick costs one round trip of
 * queries, not four in a row. Occurrences are normally materialised a horizon ahead of their time; when this
 * tick materialised any, the engine looks once more, so one already due (after an outage) is still paid now.
 * All stop starting new work in time and leave the rest: payouts and recurrences
 * `STOP_STARTING_BEFORE_DEADLINE_MS` before the deadline, refunds `REFUND_STOP_STARTING_BEFORE_DEADLINE_MS`.
 */
export async function runDueSweep(
  parts: {
    engine: Pick<PayoutSweeper, 'sweep'>;
    recurrences: Pick<RecurrenceService, 'sweep'>;
    refunds: Pick<RefundSender, 'sweep'>;
  },
  remainingMs: number,
  now = Date.now(),
): Promise<{
  recurrences: RecurrenceSweepReport;
  payouts: SweepReport;
  refunds: Awaited<ReturnType<RefundSender['sweep']>>;
}> {
  const stopStartingAt = now + remainingMs - STOP_STARTING_BEFORE_DEADLINE_MS;
  // allSettled, not all: when one sweep fails, the others' provider calls and writes still finish before the
  // invocation ends (and Lambda freezes whatever is left in flight).
  const [recurrences, first, refunds] = valuesOrFirstError(
    await Promise.allSettled([
      parts.recurrences.sweep({ stopStartingAt }),
      parts.engine.sweep({ stopStartingAt }),
      parts.refunds.sweep({ stopStartingAt: now + remainingMs - REFUND_STOP_STARTING_BEFORE_DEADLINE_MS }),
    ]),
  );
  const payouts =
    recurrences.materialised > 0
      ? addSweepReports(first, await parts.engine.sweep({ stopStartingAt }))
      : first;
  return { recurrences, payouts, refunds };
}

/**
 * The same tick when submission is fanned out (AWS: SQS, `npm start`: its stand-in): recurrences and refunds
 * as in `runDueSweep`, but due scheduled payouts are released and every due pending payout is handed to the
 * submission queue, at most `maxEnqueued` of them (the stage's per-tick maximum); the `submit-payouts` workers
 * send them. See docs/submission.md.
 */
export async function runDueDispatch(
  parts: {
    engine: Pick<PayoutSweeper, 'dispatch'>;
    recurrences: Pick<RecurrenceService, 'sweep'>;
    refunds: Pick<RefundSender, 'sweep'>;
    submissions: SubmissionQueue;
    /** Hands over correction jobs whose work the queue refused (lib/bulk-corrections/pending-enqueue.ts). */
    pendingCorrections?: (stopStartingAt: number) => Promise<PendingEnqueueReport>;
  },
  remainingMs: number,
  options: { now?: number; maxEnqueued?: number } = {},
): Promise<{
  recurrences: RecurrenceSweepReport;
  payouts: DispatchReport;
  refunds: Awaited<ReturnType<RefundSender['sweep']>>;
  corrections?: PendingEnqueueReport;
}> {
  const now = options.now ?? Date.now();
  const stopStartingAt = now + remainingMs - STOP_STARTING_BEFORE_DEADLINE_MS;
  const dispatch = (maxEnqueued = options.maxEnqueued) =>
    parts.engine.dispatch(parts.submissions, {
      stopStartingAt: now + remainingMs - DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS,
      ...(maxEnqueued !== undefined && { maxEnqueued }),
    });
  const noCorrections: PendingEnqueueReport = { enqueued: 0, stillPending: 0 };
  const [recurrences, first, refunds, corrections] = valuesOrFirstError(
    await Promise.allSettled([
      parts.recurrences.sweep({ stopStartingAt }),
      dispatch(),
      parts.refunds.sweep({ stopStartingAt: now + remainingMs - REFUND_STOP_STARTING_BEFORE_DEADLINE_MS }),
      // A job's hand-over is as costly as a page of the dispatch (test/infra/handler-limits.test.ts).
      parts.pendingCorrections?.(now + remainingMs - DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS) ??
        Promise.resolve(noCorrections),
    ]),
  );
  // The tick's maximum covers both dispatches.
  const rest = options.maxEnqueued === undefined ? undefined : options.maxEnqueued - first.enqueued;
  const payouts =
    recurrences.materialised > 0 && (rest === undefined || rest > 0)
      ? addDispatchReports(first, await dispatch(rest))
      : first;
  return { recurrences, payouts, refunds, ...(parts.pendingCorrections && { corrections }) };
}

function addDispatchReports(a: DispatchReport, b: DispatchReport): DispatchReport {
  return {
    released: a.released + b.released,
    missed: a.missed + b.missed,
    enqueued: a.enqueued + b.enqueued,
    leftOver: b.leftOver,
    ...((a.paused || b.paused) && { paused: true }),
  };
}

function valuesOrFirstError<T extends readonly unknown[]>(
  results: { -readonly [K in keyof T]: PromiseSettledResult<T[K]> },
): T {
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

function addSweepReports(a: SweepReport, b: SweepReport): SweepReport {
  const outcomes: Record<string, number> = { ...a.outcomes };
  for (const [kind, count] of Object.entries(b.outcomes)) outcomes[kind] = (outcomes[kind] ?? 0) + count;
  return {
    released: a.released + b.released,
    missed: a.missed + b.missed,
    submitted: a.submitted + b.submitted,
    skipped: a.skipped + b.skipped,
    outcomes,
    leftOver: b.leftOver,
  };
}

/**
 * The provider-schedule sync starts no page with less than this left: a page's read and its upserts, each
 * abandoned at its deadline, the cursor's write, and the finishing writes (test/infra/handler-limits.test.ts).
 */
export const SYNC_STOP_STARTING_BEFORE_DEADLINE_MS = 68_000;

/**
 * One run of the sync of the provider's own scheduled and recurrent payouts into the ops read view; with
 * `remainingMs` (what the invocation has left) it stops in time and the next run resumes where it stopped.
 */
export function runProviderScheduleSync(
  service: ProviderScheduleService,
  source: ProviderScheduleSource,
  remainingMs?: number,
  now = Date.now(),
): Promise<SyncRun> {
  return service.sync(
    source,
    remainingMs === undefined
      ? {}
      : { stopStartingAt: now + remainingMs - SYNC_STOP_STARTING_BEFORE_DEADLINE_MS },
  );
}
