import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  type PayoutEngine,
  type RequestedSubmitResult,
  type SubmissionRequest,
  SubmissionRequestSchema,
  type SubmitRequestedOptions,
  submitRequested,
} from '../payouts/index.js';
import { CorrelationIdSchema } from '../shared/correlation.js';
import { traceHttpCalls } from '../shared/http-call-tracing.js';
import type { Logger } from '../shared/logger.js';

/**
 * A worker starts no payout with less than this left before its invocation's deadline: one payout after its
 * start takes a read, a claim, a slot reservation, the wait for its slot, the provider call and the recording,
 * each to its deadline at worst (test/infra/handler-limits.test.ts); what is not started is handed back.
 */
export const WORKER_STOP_STARTING_BEFORE_DEADLINE_MS = 150_000;

export interface SubmissionBatchReport {
  readonly received: number;
  readonly sent: number;
  readonly skipped: number;
  /** Handed back to the queue (redelivered after the visibility timeout; dead-lettered after maxReceiveCount). */
  readonly handedBack: number;
  readonly outcomes: Readonly<Record<string, number>>;
}

/**
 * One invocation of the submission worker, as the SQS event source (AWS) and the local queue stand-in
 * (`npm start`) run it: every message names a payout to submit; all are submitted at once, and the answer lists
 * the messages to deliver again (partial batch response), so one failure never re-runs the others.
 *
 * A message that cannot be read, a payout whose read, claim or recording failed, and one not started before the
 * deadline are handed back. On a FIFO queue the later messages of a failed message's group are handed back too,
 * as SQS expects, although each group is one payout and its claim, not the order, keeps it exactly-once.
 */
export async function runSubmissionBatch(
  engine: Pick<PayoutEngine, 'ctx'>,
  event: SQSEvent,
  remainingMs: number,
  logger: Logger,
  options: Pick<SubmitRequestedOptions, 'limiter' | 'sleep'> & {
    now?: number;
    /** The send slots' clock (epoch ms); the limiter's own. */
    clock?: () => number;
  } = {},
): Promise<{ response: SQSBatchResponse; report: SubmissionBatchReport }> {
  const now = options.now ?? Date.now();
  // The provider's sends become client spans of the payout's (lib/shared/http-call-tracing.ts).
  traceHttpCalls();
  const parsed = event.Records.map((record) => ({ record, request: requestOf(record, logger) }));
  const readable = parsed.filter(
    (entry): entry is { record: SQSRecord; request: SubmissionRequest } => entry.request !== undefined,
  );
  const results = await submitRequested(
    engine.ctx,
    readable.map((entry) => entry.request),
    {
      stopStartingAt: now + remainingMs - WORKER_STOP_STARTING_BEFORE_DEADLINE_MS,
      ...(options.limiter && { limiter: options.limiter }),
      ...(options.sleep && { sleep: options.sleep }),
      ...(options.clock && { now: options.clock }),
    },
  );
  const resultOf = new Map<SQSRecord, PromiseSettledResult<RequestedSubmitResult>>(
    readable.map((entry, index) => [
      entry.record,
      results[index] as PromiseSettledResult<RequestedSubmitResult>,
    ]),
  );
  const failedGroups = new Set<string>();
  const handedBack: string[] = [];
  const outcomes: Record<string, number> = {};
  let sent = 0;
  let skipped = 0;
  for (const { record } of parsed) {
    const group = record.attributes.MessageGroupId;
    const result = resultOf.get(record);
    const failed = result === undefined || result.status === 'rejected' || result.value.kind === 'deferred';
    if (failed || (group !== undefined && failedGroups.has(group))) {
      handedBack.push(record.messageId);
      if (group !== undefined) failedGroups.add(group);
      if (result?.status === 'rejected') {
        logger.error('submission failed; the message goes back to the queue', {
          messageId: record.messageId,
          error: result.reason instanceof Error ? result.reason.name : 'unknown',
        });
      }
      continue;
    }
    if (result.value.kind === 'sent') {
      sent++;
      outcomes[result.value.outcome] = (outcomes[result.value.outcome] ?? 0) + 1;
    } else skipped++;
  }
  return {
    response: { batchItemFailures: handedBack.map((itemIdentifier) => ({ itemIdentifier })) },
    report: { received: event.Records.length, sent, skipped, handedBack: handedBack.length, outcomes },
  };
}

function requestOf(record: SQSRecord, logger: Logger): SubmissionRequest | undefined {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    body = undefined;
  }
  const result = SubmissionRequestSchema.safeParse(body);
  if (result.success) return { ...result.data, ...carriedOf(record) };
  // Only a bug writes such a message: it goes back until maxReceiveCount and then to the DLQ, which alarms.
  logger.error('unreadable submission message', { messageId: record.messageId });
  return undefined;
}

/** A traceparent as W3C writes it (version 00). */
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * What the message's attributes carry of the payout's path (sqs-submission-queue.ts): its correlation id and
 * traceparent, each kept only when well-formed (a bad one is dropped, the payout still submitted).
 */
function carriedOf(record: SQSRecord): Pick<SubmissionRequest, 'correlationId' | 'traceparent'> {
  const correlationId = CorrelationIdSchema.safeParse(record.messageAttributes?.correlationId?.stringValue);
  const traceparent = record.messageAttributes?.traceparent?.stringValue;
  return {
    ...(correlationId.success && { correlationId: correlationId.data }),
    ...(traceparent && TRACEPARENT.test(traceparent) && { traceparent }),
  };
}
