import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type LocalQueueOptions, LocalSqsQueue } from '../../lib/local/local-sqs-queue.js';
import { serveLocalSqs } from '../../lib/local/sqs-endpoint.js';
import { SqsDeliveringQueue } from '../../lib/payouts/adapters/sqs-delivering-queue.js';
import { queueOfArn, SqsSubmissionQueue } from '../../lib/payouts/adapters/sqs-submission-queue.js';
import { SubmissionQueueError } from '../../lib/payouts/queue/submission-queue.js';
import { silentLogger } from '../../lib/shared/logger.js';

type Answer = SQSBatchResponse | undefined;

/** A queue on a manual clock whose consumer records each batch and answers what the test says. */
function queueWith(
  overrides: Partial<LocalQueueOptions> = {},
  answer: (event: SQSEvent) => Promise<Answer> = async () => undefined,
) {
  const clock = { now: 1_000_000 };
  const batches: string[][] = [];
  const queue = new LocalSqsQueue({
    name: 'test.fifo',
    fifo: true,
    visibilityTimeoutMs: 60_000,
    maxReceiveCount: 3,
    batchSize: 10,
    maxConcurrency: 2,
    functionTimeoutMs: 10_000,
    logger: silentLogger,
    now: () => clock.now,
    // Never fires on its own: overruns are made by moving the clock.
    timeout: () => new Promise<void>(() => undefined),
    consumer: async (event) => {
      batches.push(event.Records.map((record) => record.body));
      return answer(event);
    },
    ...overrides,
  });
  return { queue, clock, batches };
}

const entry = (body: string, version = 1) => ({ body, groupId: body, deduplicationId: `${body}:${version}` });
const delivered = (batches: string[][]) => batches.flat();

describe('local SQS queue', () => {
  it('runs at most maxConcurrency invocations of at most batchSize messages', async () => {
    const held: (() => void)[] = [];
    const { queue, batches } = queueWith(
      { batchSize: 3, maxConcurrency: 2 },
      () => new Promise<Answer>((resolve) => held.push(() => resolve(undefined))),
    );
    queue.send(Array.from({ length: 10 }, (_, index) => entry(`p${index}`)));
    expect(batches.map((batch) => batch.length)).toEqual([3, 3]);
    held.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches.map((batch) => batch.length)).toEqual([3, 3, 3]);
    while (held.length > 0) {
      held.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await queue.idle();
    expect(delivered(batches).sort()).toEqual(Array.from({ length: 10 }, (_, index) => `p${index}`).sort());
    expect(queue.stats()).toMatchObject({ visible: 0, inFlight: 0, peakConcurrency: 2, invocations: 4 });
  });

  it('delivers a message named in the partial batch response again, after the visibility timeout only', async () => {
    let first = true;
    const { queue, clock, batches } = queueWith({}, async (event) => {
      if (!first) return undefined;
      first = false;
      const failed = event.Records.find((record) => record.body === 'b');
      return { batchItemFailures: failed ? [{ itemIdentifier: failed.messageId }] : [] };
    });
    queue.send([entry('a'), entry('b'), entry('c')]);
    await queue.idle();
    expect(queue.stats()).toMatchObject({ visible: 0, inFlight: 1 });
    clock.now += 59_999;
    queue.pump();
    await queue.idle();
    expect(batches).toHaveLength(1);
    clock.now += 1;
    queue.pump();
    await queue.idle();
    expect(batches).toEqual([['a', 'b', 'c'], ['b']]);
    expect(queue.stats()).toMatchObject({ visible: 0, inFlight: 0 });
  });

  it('delivers the whole batch again when the invocation throws', async () => {
    let calls = 0;
    const { queue, clock, batches } = queueWith({}, async () => {
      calls++;
      if (calls === 1) throw new Error('crashed');
      return undefined;
    });
    queue.send([entry('a'), entry('b')]);
    await queue.idle();
    clock.now += 60_000;
    queue.pump();
    await queue.idle();
    expect(batches).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(queue.stats().inFlight).toBe(0);
  });

  it('treats an invocation that ran past the function timeout as crashed, whatever it answered', async () => {
    let calls = 0;
    const { queue, clock, batches } = queueWith({}, async () => {
      calls++;
      if (calls === 1) clock.now += 10_001;
      return undefined;
    });
    queue.send([entry('a')]);
    await queue.idle();
    expect(queue.stats().inFlight).toBe(1);
    clock.now += 60_000;
    queue.pump();
    await queue.idle();
    expect(batches).toEqual([['a'], ['a']]);
    expect(queue.stats().inFlight).toBe(0);
  });

  it('frees the concurrency slot of an invocation that never returns once its timeout passes', async () => {
    let fireTimeout: (() => void) | undefined;
    const { queue, batches } = queueWith(
      {
        maxConcurrency: 1,
        timeout: () =>
          new Promise<void>((resolve) => {
            fireTimeout = resolve;
          }),
      },
      () => new Promise<Answer>(() => undefined),
    );
    queue.send([entry('a')]);
    queue.send([entry('b')]);
    expect(batches).toEqual([['a']]);
    fireTimeout?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['a'], ['b']]);
  });

  it('moves a message to the dead letters after maxReceiveCount deliveries', async () => {
    const { queue, clock, batches } = queueWith({ maxReceiveCount: 3 }, async () => {
      throw new Error('always fails');
    });
    queue.send([entry('poison')]);
    for (let round = 0; round < 5; round++) {
      await queue.idle();
      clock.now += 60_000;
      queue.pump();
    }
    await queue.idle();
    expect(batches).toHaveLength(3);
    expect(queue.deadLetterBodies()).toEqual(['poison']);
    expect(queue.stats()).toMatchObject({ visible: 0, inFlight: 0, deadLetters: 1 });
  });

  it('drops a FIFO deduplication id seen within five minutes, per message group', async () => {
    const held: (() => void)[] = [];
    const { queue, clock, batches } = queueWith(
      { maxConcurrency: 10 },
      () => new Promise<Answer>((resolve) => held.push(() => resolve(undefined))),
    );
    queue.send([entry('p1', 1)]);
    queue.send([entry('p1', 1)]);
    queue.send([{ body: 'p2', groupId: 'p2', deduplicationId: 'p1:1' }]);
    for (const release of held.splice(0)) release();
    await queue.idle();
    clock.now += 4 * 60_000;
    queue.send([entry('p1', 1)]);
    expect(delivered(batches)).toEqual(['p1', 'p2']);
    clock.now += 60_000;
    queue.send([entry('p1', 1)]);
    queue.send([entry('p3', 1)]);
    for (const release of held.splice(0)) release();
    await queue.idle();
    expect(delivered(batches)).toEqual(['p1', 'p2', 'p1', 'p3']);
  });

  it('hands out no message of a FIFO group while another of that group is in flight', async () => {
    const held: (() => void)[] = [];
    const { queue, batches } = queueWith(
      { maxConcurrency: 5, batchSize: 1 },
      () => new Promise<Answer>((resolve) => held.push(() => resolve(undefined))),
    );
    queue.send([entry('p1', 1), entry('p1', 2), entry('p2', 1)]);
    expect(batches).toEqual([['p1'], ['p2']]);
    held.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['p1'], ['p2'], ['p1']]);
    for (const release of held.splice(0)) release();
    await queue.idle();
  });

  it('takes SendMessageBatch from the SQS client over HTTP, with group and deduplication ids', async () => {
    const held: (() => void)[] = [];
    const { queue, batches } = queueWith({ maxConcurrency: 100 }, (event) => {
      expect(
        event.Records.every(
          (record) => record.attributes.MessageGroupId === JSON.parse(record.body).payoutId,
        ),
      ).toBe(true);
      return new Promise<Answer>((resolve) => held.push(() => resolve(undefined)));
    });
    const endpoint = await serveLocalSqs(queue, { port: 0, logger: silentLogger });
    try {
      const client = new SqsSubmissionQueue({
        queueUrl: endpoint.queueUrl,
        endpoint: endpoint.url,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      const requests = Array.from({ length: 25 }, (_, index) => ({ payoutId: `p${index}`, version: 2 }));
      await client.enqueue(requests);
      // Enqueued again by the next tick: the same payout in the same state is dropped.
      await client.enqueue(requests.slice(0, 5));
      expect(delivered(batches).map((body) => JSON.parse(body))).toHaveLength(25);
      expect(new Set(delivered(batches))).toEqual(
        new Set(requests.map((request) => JSON.stringify(request))),
      );

      const elsewhere = new SqsSubmissionQueue({
        queueUrl: `${endpoint.url}/000000000000/other.fifo`,
        endpoint: endpoint.url,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      await expect(elsewhere.enqueue(requests.slice(0, 1))).rejects.toThrow(SubmissionQueueError);
      await expect(elsewhere.enqueue(requests.slice(0, 1))).rejects.toThrow(/400 QueueDoesNotExist/);
    } finally {
      for (const release of held.splice(0)) release();
      await queue.idle();
      await endpoint.close();
    }
  });

  it('delivers a message handed back with ChangeMessageVisibilityBatch over HTTP after the seconds it names, not the visibility timeout', async () => {
    const handles: string[] = [];
    let first = true;
    const { queue, clock, batches } = queueWith({}, async (event) => {
      if (!first) return undefined;
      first = false;
      handles.push(...event.Records.map((record) => record.receiptHandle));
      return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
    });
    const endpoint = await serveLocalSqs(queue, { port: 0, logger: silentLogger });
    try {
      const client = new SqsDeliveringQueue({
        queueUrl: endpoint.queueUrl,
        endpoint: endpoint.url,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      queue.send([entry('a')]);
      await queue.idle();
      expect(queue.stats()).toMatchObject({ visible: 0, inFlight: 1 });
      const unchanged = await client.changeVisibility([
        { receiptHandle: handles[0] ?? '', visibilitySeconds: 5 },
        { receiptHandle: 'no-such-handle', visibilitySeconds: 5 },
      ]);
      expect(unchanged).toBe(1);
      clock.now += 4_999;
      queue.pump();
      await queue.idle();
      expect(batches).toHaveLength(1);
      clock.now += 1;
      queue.pump();
      await queue.idle();
      expect(batches).toEqual([['a'], ['a']]);
      expect(queue.stats()).toMatchObject({ visible: 0, inFlight: 0 });
    } finally {
      await queue.idle();
      await endpoint.close();
    }
  });

  it('addresses the queue an event source ARN names, in AWS and on the local stand-in', () => {
    expect(queueOfArn('arn:aws:sqs:eu-west-1:123456789012:payout-submissions.fifo')).toEqual({
      region: 'eu-west-1',
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/payout-submissions.fifo',
    });
    expect(queueOfArn('arn:aws:sqs:local:000000000000:test.fifo', 'http://127.0.0.1:4576/')).toEqual({
      region: 'local',
      queueUrl: 'http://127.0.0.1:4576/000000000000/test.fifo',
    });
    expect(queueOfArn('arn:aws:sns:eu-west-1:123456789012:topic')).toBeUndefined();
    expect(queueOfArn(undefined)).toBeUndefined();
  });

  it('refuses a cross-site text/plain POST to the local queue, and a rebound Host, enqueuing nothing', async () => {
    const { queue, batches } = queueWith({}, () => Promise.resolve(undefined));
    const endpoint = await serveLocalSqs(queue, { port: 0, logger: silentLogger });
    try {
      const body = JSON.stringify({
        QueueUrl: endpoint.queueUrl,
        Entries: [{ Id: '0', MessageBody: '{"payoutId":"p1","version":1}', MessageGroupId: 'p1' }],
      });
      const crossSite = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          origin: 'http://evil.example',
          'x-amz-target': 'AmazonSQS.SendMessageBatch',
        },
        body,
      });
      expect(crossSite.status).toBe(403);
      const { request } = await import('node:http');
      const rebound = await new Promise<number>((resolve, reject) => {
        const call = request(
          `${endpoint.url}/`,
          {
            method: 'POST',
            headers: {
              host: `evil.example:${new URL(endpoint.url).port}`,
              'content-type': 'application/x-amz-json-1.0',
              'x-amz-target': 'AmazonSQS.SendMessageBatch',
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        call.on('error', reject);
        call.end(body);
      });
      expect(rebound).toBe(421);
      await queue.idle();
      expect(delivered(batches)).toEqual([]);
    } finally {
      await endpoint.close();
    }
  });
});
