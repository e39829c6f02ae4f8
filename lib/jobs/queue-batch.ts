import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { CorrectionJobService } from '../bulk-corrections/index.js';
import type { Logger } from '../shared/logger.js';
import { type CorrectionBatchReport, isCorrectionMessage, runCorrectionBatch } from './correction-batch.js';
import type { runSubmissionBatch, SubmissionBatchReport } from './submission-batch.js';

/**
 * One invocation of the queue worker (`functions/submit-payouts.ts`): payouts and correction-job work share
 * the submission queue, told apart by the message's `kind`; both run at once and one partial batch response
 * names every message to deliver again.
 */
export async function runQueueBatch(
  parts: {
    readonly submit: (event: SQSEvent) => ReturnType<typeof runSubmissionBatch>;
    readonly jobs: Pick<CorrectionJobService, 'work'>;
  },
  event: SQSEvent,
  remainingMs: number,
  logger: Logger,
): Promise<{
  response: SQSBatchResponse;
  report: { payouts?: SubmissionBatchReport; corrections?: CorrectionBatchReport };
}> {
  const corrections = event.Records.filter(isCorrectionMessage);
  const payouts = event.Records.filter((record) => !isCorrectionMessage(record));
  const [submitted, corrected] = await Promise.all([
    payouts.length > 0 ? parts.submit({ Records: payouts }) : undefined,
    corrections.length > 0 ? runCorrectionBatch(parts.jobs, corrections, remainingMs, logger) : undefined,
  ]);
  return {
    response: {
      batchItemFailures: [
        ...(submitted?.response.batchItemFailures ?? []),
        ...(corrected?.failures ?? []).map((itemIdentifier) => ({ itemIdentifier })),
      ],
    },
    report: {
      ...(submitted && { payouts: submitted.report }),
      ...(corrected && { corrections: corrected.report }),
    },
  };
}
