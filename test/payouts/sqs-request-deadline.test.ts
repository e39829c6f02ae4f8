import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SQS_REQUEST_TIMEOUT_MS,
  SqsSubmissionQueue,
} from '../../lib/payouts/adapters/sqs-submission-queue.js';
import { type SilentServer, startSilentServer } from '../support/silent-server.js';

let silent: SilentServer;
beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(async () => silent?.close());

describe('a SendMessageBatch to a queue that never answers', () => {
  it('gives up at SQS_REQUEST_TIMEOUT_MS, the per-call figure the limits proof counts, on one connection', async () => {
    const queue = new SqsSubmissionQueue({
      queueUrl: `${silent.url}/123456789012/payouts.fifo`,
      endpoint: silent.url,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    });
    const before = silent.connections();
    const started = performance.now();
    // One batch (ten requests at most): a single SendMessageBatch, then no second offer (nothing was refused).
    const error = await queue.enqueue([{ payoutId: 'p-1', version: 1 }]).catch((failure: unknown) => failure);
    const ms = performance.now() - started;
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(ms).toBeGreaterThanOrEqual(SQS_REQUEST_TIMEOUT_MS - 10);
    expect(ms).toBeLessThan(SQS_REQUEST_TIMEOUT_MS + 1_500);
    expect(silent.connections() - before).toBe(1);
  });
});
