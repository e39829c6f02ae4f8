import { SpanKind, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutsApi } from '../../lib/api/functions/payouts.js';
import type { ApiHandler } from '../../lib/api/router.js';
import { runDueDispatch } from '../../lib/jobs/scheduled.js';
import { sweepDuePayouts } from '../../lib/jobs/sweep-due-payouts.js';
import { stageConfigOf, startLocalSubmissionWorkers } from '../../lib/local/submission-workers.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { type Runtime, runtimeFromProcessEnv } from '../../lib/runtime/runtime.js';
import { recurrencesOf, refundsOf } from '../../lib/runtime/services.js';
import { submissionsOf } from '../../lib/runtime/submissions.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { CapturingLogger, silentLogger } from '../../lib/shared/logger.js';
import { apiEvent, bankTransfer, call, type EventInput } from '../api/support/harness.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * One payout followed end to end on one machine, as on-call follows it in AWS: `POST /payouts` through the
 * payouts API's router, the sweeper's tick enqueueing it through the SQS client to the queue's stand-in, the
 * real `functions/submit-payouts.ts` handler claiming and sending it to the provider sandbox over HTTP. The
 * spans go to an in-memory exporter registered through OpenTelemetry's API, as the ADOT layer registers its own.
 */
const exporter = new InMemorySpanExporter();
const logger = new CapturingLogger();
let sandbox: Sandbox;
let runtime: Runtime;
let api: ApiHandler;
let closeTable: () => void;
let workers: Awaited<ReturnType<typeof startLocalSubmissionWorkers>>;

beforeAll(async () => {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  const table = await createTestTable('traced-payout');
  closeTable = () => table.client.destroy();
  sandbox = await startSandbox({});
  const worker = (await import('../../functions/submit-payouts.js')).handler;
  workers = await startLocalSubmissionWorkers({
    config: stageConfigOf('dev'),
    loadWorker: async () => worker,
    logger: silentLogger,
    pollIntervalMs: 60_000,
  });
  delete process.env.PROVIDER_SECRET_ID;
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    PROVIDER_BASE_URL: sandbox.url,
    PROVIDER_TOKEN: sandbox.token,
    PROVIDER_PIN: sandbox.pin,
    ...workers.environment,
  });
  // The runtime the API, the tick and the worker module share (one container's), logging to the test.
  runtime = runtimeFromProcessEnv({ logger });
  api = payoutsApi.routerOn(runtime);
});

afterAll(async () => {
  trace.disable();
  await workers.stop();
  await runtime.close();
  await sandbox.close();
  closeTable();
});

async function tick() {
  const submissions = submissionsOf(runtime);
  if (!submissions) throw new Error('the runtime has no submission queue');
  return runDueDispatch(
    {
      engine: payoutSweeper(payoutEngineOf(runtime)),
      recurrences: recurrencesOf(runtime),
      refunds: refundsOf(runtime),
      submissions,
    },
    120_000,
  );
}

/**
 * A create past its inline send window (15 s left of the invocation: the send would not fit), so the payout is
 * answered pending and goes through the queue, as one created late in a request does.
 */
async function createLate(input: Omit<EventInput, 'method' | 'path'>) {
  const result = await api(apiEvent({ method: 'POST', path: '/payouts', principal: 'alice', ...input }), {
    remainingMs: 15_000,
  });
  return {
    status: result.statusCode,
    headers: result.headers ?? {},
    body: JSON.parse(result.body ?? '{}'),
  };
}

const spanNamed = (spans: readonly ReadableSpan[], name: string) => {
  const found = spans.find((span) => span.name === name);
  if (!found) throw new Error(`no span ${name} among ${spans.map((span) => span.name).join(', ')}`);
  return found;
};

describe('one payout followed from the API through the queue and the worker to the provider', () => {
  it('is one trace, parent to child, and every log line of the payout carries its correlation id', async () => {
    exporter.reset();
    const created = await createLate({
      headers: { 'Idempotency-Key': 'traced-1', 'X-Correlation-Id': 'order-42' },
      body: bankTransfer(),
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending');
    expect(created.headers['x-correlation-id']).toBe('order-42');
    const payoutId: string = created.body.id;

    expect(await tick()).toMatchObject({ payouts: { enqueued: 1 } });
    await workers.queue.idle();
    expect((await payoutEngineOf(runtime).get(payoutId))?.status).toBe('succeeded');

    const spans = exporter.getFinishedSpans();
    const request = spanNamed(spans, 'POST /payouts');
    const claim = spanNamed(spans, 'claim payout');
    const send = spanNamed(spans, 'send payout');
    const provider = spanNamed(spans, 'POST provider');
    expect(request.kind).toBe(SpanKind.SERVER);
    expect(request.attributes['correlation.id']).toBe('order-42');
    // The queue's hand-off: the worker's spans continue the request's, carried by the message's traceparent.
    for (const span of [claim, send]) {
      expect(span.kind).toBe(SpanKind.CONSUMER);
      expect(span.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(span.attributes['payout.id']).toBe(payoutId);
    }
    expect(provider.kind).toBe(SpanKind.CLIENT);
    expect(provider.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
    expect(provider.attributes['payout.id']).toBe(payoutId);
    expect(provider.attributes['http.response.status_code']).toBe(200);
    // The table's calls are client spans of whoever made them: the request's create, the worker's claim.
    const tableCallsUnder = (parent: ReadableSpan) =>
      spans.filter(
        (span) =>
          span.name.startsWith('DynamoDB.') && span.parentSpanContext?.spanId === parent.spanContext().spanId,
      );
    expect(tableCallsUnder(request).length).toBeGreaterThan(0);
    expect(tableCallsUnder(claim).length).toBeGreaterThan(0);
    const traceIds = new Set(
      [request, claim, send, provider, ...tableCallsUnder(claim)].map((span) => span.spanContext().traceId),
    );
    expect(traceIds).toEqual(new Set([request.spanContext().traceId]));

    const linesOfPayout = logger.entries.filter(
      (entry) => entry.fields?.payoutId === payoutId || entry.fields?.correlationId === 'order-42',
    );
    expect(linesOfPayout.length).toBeGreaterThan(0);
    for (const line of linesOfPayout) expect(line.fields).toMatchObject({ correlationId: 'order-42' });
    // The worker's lines say which invocation wrote them.
    expect(linesOfPayout.some((line) => line.fields?.function_request_id !== undefined)).toBe(true);
  });

  it("the sweeper's tick is a span of its own, its table calls its children, and the payout it hands over keeps the request's trace", async () => {
    const created = await createLate({ headers: { 'Idempotency-Key': 'traced-tick' }, body: bankTransfer() });
    expect(created.status).toBe(201);
    const payoutId: string = created.body.id;
    exporter.reset();
    const report = await sweepDuePayouts(runtime, 120_000);
    expect(report.payouts).toMatchObject({ enqueued: 1 });
    await workers.queue.idle();
    const spans = exporter.getFinishedSpans();
    const sweep = spanNamed(spans, 'sweep due payouts');
    expect(sweep.parentSpanContext).toBeUndefined();
    expect(sweep.attributes).toMatchObject({ 'sweep.enqueued': 1, 'sweep.left_over': false });
    const tableCalls = spans.filter(
      (span) =>
        span.name.startsWith('DynamoDB.') && span.parentSpanContext?.spanId === sweep.spanContext().spanId,
    );
    expect(tableCalls.map((span) => span.name)).toContain('DynamoDB.Query');
    for (const call of tableCalls) expect(call.spanContext().traceId).toBe(sweep.spanContext().traceId);
    const send = spans.find(
      (span) => span.name === 'send payout' && span.attributes['payout.id'] === payoutId,
    );
    expect(send?.spanContext().traceId).toBeDefined();
    expect(send?.spanContext().traceId).not.toBe(sweep.spanContext().traceId);
  });

  it('a generated correlation id is answered and travels the same way', async () => {
    const created = await createLate({ headers: { 'Idempotency-Key': 'traced-2' }, body: bankTransfer() });
    expect(created.status).toBe(201);
    const correlationId = created.headers['x-correlation-id'];
    expect(correlationId).toMatch(/^[0-9a-f-]{36}$/);
    await tick();
    await workers.queue.idle();
    const lines = logger.entries.filter((entry) => entry.fields?.payoutId === created.body.id);
    for (const line of lines) expect(line.fields).toMatchObject({ correlationId });
  });

  it('a bad X-Correlation-Id is a 400 naming the header, and stores nothing', async () => {
    const before = (await call(api, { method: 'GET', path: '/payouts', query: 'limit=100' })).body.items
      .length;
    for (const bad of ['has spaces', 'x'.repeat(65), 'semi;colon']) {
      const answer = await createLate({
        headers: { 'Idempotency-Key': `traced-bad-${bad.length}`, 'X-Correlation-Id': bad },
        body: bankTransfer(),
      });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain('X-Correlation-Id');
    }
    const after = (await call(api, { method: 'GET', path: '/payouts', query: 'limit=100' })).body.items
      .length;
    expect(after).toBe(before);
  });
});
