import { errorKind } from '../../shared/errors.js';
import * as z from '../../shared/zod.js';
import { type Payout, PayoutStatus } from '../model.js';

/**
 * One request to submit a payout, as the sweeper hands it to the submission workers. It names one eligibility of
 * the payout, so a FIFO queue drops the same request enqueued again by the next tick (`deduplicationIdOf`) and
 * never a new eligibility:
 * - `version`, the payout's version when it was found due: every write that makes a payout eligible again (a
 *   release, a claim given back, a 429 or a transient fault recorded, an attempt proved absent) advances it;
 * - `resumeEpoch`, when payouts were last paused or resumed (epoch ms of the controls' `updatedAt`; 0 when never)
 *   as the sweeper read it: a resume writes no payout, yet makes eligible again every payout a worker skipped
 *   while paused (which writes nothing), so a resume is a new eligibility of each of them.
 * - `round`, how many `REDELIVER_STUCK_AFTER_MS` have passed since the payout became eligible (absent for the
 *   first): a payout still pending that long after it became eligible is not waiting in the queue (the queue holds
 *   at most two ticks' draining, docs/submission.md) but on a message stuck in flight, its invocation dead before
 *   its claim; the next round is a new message in a new group, delivered at once instead of after the 24-minute
 *   visibility timeout.
 * Absent on a hand-over at creation (which does not read the controls): a distinct request, at worst one
 * duplicate the claim makes harmless.
 */
export const SubmissionRequestSchema = z.lazy(() =>
  z.strictObject({
    payoutId: z.string().check(z.minLength(1), z.maxLength(64)),
    version: z.int().check(z.nonnegative()),
    resumeEpoch: z.optional(z.int().check(z.nonnegative())),
    round: z.optional(z.int().check(z.gte(1))),
    // Carried as message attributes, never in the body (sqs-submission-queue.ts): what ties the payout's path.
    correlationId: z.optional(z.string().check(z.maxLength(64))),
    traceparent: z.optional(z.string().check(z.maxLength(55))),
  }),
);
export type SubmissionRequest = z.infer<typeof SubmissionRequestSchema>;

/**
 * How long a payout stays pending after it became eligible before the sweeper's request for it is a new message
 * (`round` + 1): FIFO's deduplication window, which the stage's sizing keeps above any wait in the queue
 * (`submission.maxEnqueuePerTick` at most R x 300 s), so only a message stuck in flight is ever sent again.
 */
export const REDELIVER_STUCK_AFTER_MS = 300_000;

/**
 * The submission requests for `payouts`: one for each still pending, in its current state (and under the
 * controls' `resumeEpoch` the sweeper read, with the `round` it has reached at `now`, see
 * `SubmissionRequestSchema`); a payout in any other state (awaiting approval, claimed, ended) is nobody's to
 * submit and gets none.
 */
export function submissionRequestsFor(
  payouts: readonly Payout[],
  resumeEpoch?: number,
  now?: Date,
): SubmissionRequest[] {
  return payouts
    .filter((payout) => payout.status === PayoutStatus.Pending)
    .map((payout) => {
      const round = now === undefined ? 0 : roundOf(payout, resumeEpoch ?? 0, now);
      return {
        payoutId: payout.id,
        version: payout.version,
        ...(resumeEpoch !== undefined && { resumeEpoch }),
        ...(round > 0 && { round }),
        correlationId: payout.correlationId,
        traceparent: payout.traceparent,
      };
    });
}

/** Whole `REDELIVER_STUCK_AFTER_MS` since `payout` became eligible: its last write, its retry time, the resume. */
function roundOf(payout: Payout, resumeEpoch: number, now: Date): number {
  // An absent or unreadable time is NaN, so 0: it never moves the start.
  const eligibleSince = Math.max(
    Date.parse(payout.updatedAt) || 0,
    Date.parse(payout.nextActionAt ?? '') || 0,
    resumeEpoch,
  );
  return Math.max(0, Math.floor((now.getTime() - eligibleSince) / REDELIVER_STUCK_AFTER_MS));
}

/** The epoch a request carries for `controls`: when they last changed (a pause or a resume), 0 when never. */
export function resumeEpochOf(controls: { readonly updatedAt?: string }): number {
  const at = controls.updatedAt === undefined ? Number.NaN : Date.parse(controls.updatedAt);
  return Number.isFinite(at) && at > 0 ? at : 0;
}

/**
 * The port through which the sweeper fans submission out to the workers: SQS in AWS, the local stand-in under
 * `npm start`. Enqueueing a request never sends anything; the worker's claim is still the exactly-once gate.
 *
 * @example await queue.enqueue([{ payoutId: '01J…', version: 3 }]);
 */
export interface SubmissionQueue {
  /** Resolves once every request is accepted by the queue; throws (naming how many) when some were not. */
  enqueue(requests: readonly SubmissionRequest[]): Promise<void>;
}

/**
 * FIFO deduplication id: the same eligibility of a payout is one request, however often it is found due; a new
 * eligibility (a write, a resume) is a new id, so it is never dropped within the queue's 5-minute window.
 */
export const deduplicationIdOf = (request: SubmissionRequest): string =>
  `${request.payoutId}:${request.version}${request.resumeEpoch === undefined ? '' : `:${request.resumeEpoch}`}${
    request.round === undefined ? '' : `:r${request.round}`
  }`;

/**
 * FIFO message group: one per eligibility (the deduplication id), not per payout. The queue deduplicates per
 * group, so the same eligibility is still dropped; but a message stuck in flight (its invocation crashed or
 * timed out: invisible for the visibility timeout, 24 minutes) never holds back a later eligibility of its
 * payout, which a group per payout would. The claim, not the order, keeps each payout exactly-once.
 */
export const messageGroupOf = (request: SubmissionRequest): string => deduplicationIdOf(request);

/** The queue refused some of the requests (the sweep fails so it alarms; the next tick enqueues them again). */
export class SubmissionQueueError extends /* @__PURE__ */ errorKind(
  'SubmissionQueueError',
  'SUBMISSION_QUEUE_FAILED',
) {}
