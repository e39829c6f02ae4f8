import { describe, expect, it } from 'vitest';
import { SUBMIT_WORKER_TIMEOUT_SECONDS, VISIBILITY_TIMEOUT_FACTOR } from '../../infra/config/submission.js';
import { HANDLERS } from '../../infra/handlers.js';
import { ROW_STOP_STARTING_BEFORE_DEADLINE_MS } from '../../lib/jobs/correction-batch.js';
import {
  DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS,
  STOP_STARTING_BEFORE_DEADLINE_MS,
} from '../../lib/jobs/scheduled.js';
import { WORKER_STOP_STARTING_BEFORE_DEADLINE_MS } from '../../lib/jobs/submission-batch.js';
import { SQS_REQUEST_TIMEOUT_MS } from '../../lib/payouts/adapters/sqs-submission-queue.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { DEFAULT_DISPATCH_PAGE_SIZE } from '../../lib/payouts/engine/dispatch.js';
import { MAX_SLOT_WAIT_MS } from '../../lib/payouts/engine/submit-requested.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../lib/provider/client.js';
import { REQUEST_HANDLER } from '../../lib/shared/dynamodb-client.js';
import { stageConfigFromCdkJson } from './support/synth.js';

/** One DynamoDB request to its deadline (the SDK gives up on a quiet connection after `requestTimeout`). */
const dynamoDbCall = REQUEST_HANDLER.connectionTimeout + REQUEST_HANDLER.requestTimeout;
/** What a worker may spend on one payout after starting it: every call to its deadline. */
const workerWorstCaseMs =
  dynamoDbCall + // read the payout
  dynamoDbCall + // claim it
  2 * dynamoDbCall + // reserve the batch's slots: read and compare-and-set the pacer item
  MAX_SLOT_WAIT_MS + // wait for its slot (a farther slot gives the claim back unsent)
  DEFAULT_REQUEST_TIMEOUT_MS + // the provider call
  dynamoDbCall; // record the outcome
/** What a worker may spend on one correction-job row after starting it (lib/bulk-corrections/correction-jobs.ts). */
const rowWorstCaseMs =
  dynamoDbCall + // read the row
  dynamoDbCall + // read the item's last state (the gate's "known invalid")
  dynamoDbCall + // read the controls (pause)
  dynamoDbCall + // claim the row
  DEFAULT_REQUEST_TIMEOUT_MS + // the provider call
  dynamoDbCall + // the audit entry
  5 * dynamoDbCall + // the item's state: 3 attempts, each after the first re-reading it
  dynamoDbCall; // record the row's result
/** Headroom kept beyond the worst case. */
const MARGIN = 1.2;

describe('the submission worker fits its limits', () => {
  it('finishes the worst case of a payout it started before its timeout, with margin', () => {
    const timeoutMs = HANDLERS['submit-payouts'].timeout.toMilliseconds();
    expect(timeoutMs).toBe(SUBMIT_WORKER_TIMEOUT_SECONDS * 1000);
    // A batch starts all its payouts at once, so the invocation's worst case is one payout's.
    expect(WORKER_STOP_STARTING_BEFORE_DEADLINE_MS).toBeGreaterThanOrEqual(workerWorstCaseMs);
    expect(workerWorstCaseMs * MARGIN).toBeLessThanOrEqual(timeoutMs);
    // A fresh invocation starts its batch.
    expect(timeoutMs).toBeGreaterThan(WORKER_STOP_STARTING_BEFORE_DEADLINE_MS);
  });

  it('finishes the worst case of a correction-job row it started before its timeout, with margin', () => {
    const timeoutMs = HANDLERS['submit-payouts'].timeout.toMilliseconds();
    expect(ROW_STOP_STARTING_BEFORE_DEADLINE_MS).toBeGreaterThanOrEqual(rowWorstCaseMs);
    expect(rowWorstCaseMs * MARGIN).toBeLessThanOrEqual(timeoutMs);
    expect(timeoutMs).toBeGreaterThan(ROW_STOP_STARTING_BEFORE_DEADLINE_MS);
  });

  it("keeps a claimed payout's wait, send and recording inside the claim's lease", () => {
    const afterClaim = MAX_SLOT_WAIT_MS + 2 * dynamoDbCall + DEFAULT_REQUEST_TIMEOUT_MS + dynamoDbCall;
    expect(afterClaim * MARGIN).toBeLessThanOrEqual(defaultEngineConfig.submitLeaseMs);
  });

  it.each(['dev', 'prod'])('%s: is never redelivered while an invocation may still run', (stage) => {
    const config = stageConfigFromCdkJson(stage);
    expect(VISIBILITY_TIMEOUT_FACTOR).toBeGreaterThanOrEqual(6);
    expect(config.submission.batchSize).toBeLessThanOrEqual(10);
    // The invocation's event: at most a batch of small messages ({ payoutId, version }), far below 6 MB.
    const message = JSON.stringify({ payoutId: 'x'.repeat(64), version: Number.MAX_SAFE_INTEGER });
    expect(config.submission.batchSize * (message.length + 2_000)).toBeLessThan(256 * 1024);
  });

  it("lets the sweeper's dispatch finish a page it started before the tick's deadline", () => {
    // One page: a query, then its SendMessageBatch calls (each offered twice at most), 16 at a time.
    const pageWorstCaseMs =
      dynamoDbCall + 2 * Math.ceil(DEFAULT_DISPATCH_PAGE_SIZE / 10 / 16) * SQS_REQUEST_TIMEOUT_MS;
    expect(pageWorstCaseMs * MARGIN).toBeLessThanOrEqual(DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS);
    // And the tick has time to dispatch at all.
    expect(HANDLERS['sweep-due-payouts'].timeout.toMilliseconds()).toBeGreaterThan(
      DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS + STOP_STARTING_BEFORE_DEADLINE_MS,
    );
  });
});
