import * as z from '../shared/zod.js';

// The schemas below are built on first use (z.lazy), not when a function loads this module: a cold start that never
// reads these items does not pay for them (docs/cold-start.md).

/**
 * One unit of work of a correction job, as the API hands it to the queue workers: the rows of one bulk payout
 * item, in their order in the batch, so corrections of the same item never overtake each other. Messages share
 * the submission queue with payouts and are told apart by `kind`.
 */
export const CorrectionWorkSchema = z.lazy(() =>
  z.strictObject({
    kind: z.literal('bulk-correction'),
    jobId: z.string().check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/)),
    bulkPayoutItemId: z.string().check(z.minLength(1), z.maxLength(64)),
    indexes: z.array(z.int().check(z.nonnegative(), z.lt(10_000))).check(z.minLength(1), z.maxLength(500)),
  }),
);
export type CorrectionWork = z.infer<typeof CorrectionWorkSchema>;

/** A queued message, in the terms FIFO SQS needs. */
export interface QueueMessage {
  readonly body: string;
  readonly groupId: string;
  readonly deduplicationId: string;
}

/** The message of a unit of work: one group per job and item; the same unit sent twice within five minutes is dropped. */
export function correctionMessageOf(work: CorrectionWork): QueueMessage {
  const key = `${work.jobId}:${work.bulkPayoutItemId}`;
  return { body: JSON.stringify(work), groupId: key, deduplicationId: key };
}

/**
 * Where the API hands correction work to the workers: SQS in AWS, the local stand-in under `npm start`.
 * Enqueueing sends nothing to the provider; the worker's claim of each row is the exactly-once gate.
 */
export interface CorrectionWorkQueue {
  /** Resolves once every message is accepted; throws when some were not. */
  send(messages: readonly QueueMessage[]): Promise<void>;
}
