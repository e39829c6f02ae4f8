import type { SQSRecord } from 'aws-lambda';
import {
  type CorrectionJobService,
  type CorrectionWork,
  CorrectionWorkSchema,
} from '../bulk-corrections/index.js';
import type { Logger } from '../shared/logger.js';

/**
 * A worker starts no correction-job row with less than this left before its deadline. One row after its start:
 * read the row, read the item's state, read the controls, claim, call the provider (30 s), write the audit, write
 * the item's state (up to 3 attempts, each after the first re-reading it: 5 calls), record the row; 11 DynamoDB
 * calls of at most 13 s each and the provider call: 173 s, with the limits margin of 1.2 at most 208 s (test/infra/handler-limits.test.ts).
 */
export const ROW_STOP_STARTING_BEFORE_DEADLINE_MS = 210_000;

export interface CorrectionBatchReport {
  readonly received: number;
  readonly done: number;
  /** Handed back to the queue: not finished before the deadline, or failed (redelivered after the visibility timeout). */
  readonly handedBack: number;
}

/**
 * The correction-job messages of one worker invocation: each message's rows in order, all messages at once;
 * the answer names the messages to deliver again. A row's claim keeps it exactly-once across redeliveries, so
 * a message handed back (or redelivered after a crash) sends nothing twice.
 */
export async function runCorrectionBatch(
  jobs: Pick<CorrectionJobService, 'work'>,
  records: readonly SQSRecord[],
  remainingMs: number,
  logger: Logger,
  now: number = Date.now(),
): Promise<{ failures: string[]; report: CorrectionBatchReport }> {
  const stopStartingAt = now + remainingMs - ROW_STOP_STARTING_BEFORE_DEADLINE_MS;
  const outcomes = await Promise.allSettled(
    records.map(async (record) => {
      const work = workOf(record, logger);
      if (!work) return 'handed_back' as const;
      return jobs.work(work, stopStartingAt);
    }),
  );
  const failures: string[] = [];
  outcomes.forEach((outcome, index) => {
    const record = records[index] as SQSRecord;
    if (outcome.status === 'fulfilled' && outcome.value === 'done') return;
    if (outcome.status === 'rejected') {
      logger.error('correction work failed; the message goes back to the queue', {
        messageId: record.messageId,
        error: outcome.reason instanceof Error ? outcome.reason.name : 'unknown',
      });
    }
    failures.push(record.messageId);
  });
  return {
    failures,
    report: { received: records.length, done: records.length - failures.length, handedBack: failures.length },
  };
}

function workOf(record: SQSRecord, logger: Logger): CorrectionWork | undefined {
  const parsed = CorrectionWorkSchema.safeParse(bodyOf(record));
  if (parsed.success) return parsed.data;
  // Only a bug writes such a message: it goes back until maxReceiveCount and then to the DLQ, which alarms.
  logger.error('unreadable correction message', { messageId: record.messageId });
  return undefined;
}

function bodyOf(record: SQSRecord): unknown {
  try {
    return JSON.parse(record.body);
  } catch {
    return undefined;
  }
}

/** True for a message of a correction job (`kind: 'bulk-correction'`); every other message names a payout. */
export function isCorrectionMessage(record: SQSRecord): boolean {
  const body = bodyOf(record);
  return typeof body === 'object' && body !== null && 'kind' in body && body.kind === 'bulk-correction';
}
