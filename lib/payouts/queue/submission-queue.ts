import { PayoutAutomationError } from '../../shared/errors.js';
import * as z from '../../shared/zod.js';
import { type Payout, PayoutStatus } from '../model.js';

/**
 * One request to submit a payout, as the sweeper hands it to the submission workers. `version` is the payout's
 * version when it was found due: with the id it names one "still pending" state, so a FIFO queue drops the
 * same request enqueued again by the next tick (`deduplicationIdOf`), and a new state is a new request.
 */
export const SubmissionRequestSchema = z.lazy(() =>
  z.strictObject({
    payoutId: z.string().check(z.minLength(1), z.maxLength(64)),
    version: z.int().check(z.nonnegative()),
  }),
);
export type SubmissionRequest = z.infer<typeof SubmissionRequestSchema>;

/**
 * The submission requests for `payouts`: one for each still pending, in its current state; a payout in any
 * other state (awaiting approval, claimed, ended) is nobody's to submit and gets none.
 */
export function submissionRequestsFor(payouts: readonly Payout[]): SubmissionRequest[] {
  return payouts
    .filter((payout) => payout.status === PayoutStatus.Pending)
    .map((payout) => ({ payoutId: payout.id, version: payout.version }));
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

/** FIFO message group: one per payout, so messages of different payouts never wait on each other. */
export const messageGroupOf = (request: SubmissionRequest): string => request.payoutId;

/** FIFO deduplication id: the same payout in the same state is one request, however often it is found due. */
export const deduplicationIdOf = (request: SubmissionRequest): string =>
  `${request.payoutId}:${request.version}`;

/** The queue refused some of the requests (the sweep fails so it alarms; the next tick enqueues them again). */
export class SubmissionQueueError extends PayoutAutomationError {
  override readonly name = 'SubmissionQueueError';
  override readonly code = 'SUBMISSION_QUEUE_FAILED';
}
