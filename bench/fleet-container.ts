/**
 * One simulated Lambda container of the `submit-payouts` function, in a Node process of its own (forked by
 * bench/shipped-path-run.ts): its own module instance, runtime, DynamoDB client, provider connection pool,
 * write coalescer and event loop, as each container in AWS has. The coordinator hands it one SQS batch at a
 * time over IPC (as Lambda's poller invokes a container with one event at a time) and it answers with the
 * handler's partial batch response. The handler is imported on the first invocation, as Lambda's init does:
 * that invocation's extra time is the container's cold start.
 */
import { performance } from 'node:perf_hooks';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type ShippedPathTrace, startShippedPathTrace } from './shipped-path-trace.js';

/** What the coordinator sends. */
export type ContainerRequest =
  | { readonly kind: 'invoke'; readonly id: number; readonly event: SQSEvent; readonly remainingMs: number }
  | { readonly kind: 'report' }
  | { readonly kind: 'stop' };

/** What a container answers. */
export type ContainerAnswer =
  | { readonly kind: 'done'; readonly id: number; readonly response: SQSBatchResponse | undefined }
  | { readonly kind: 'failed'; readonly id: number; readonly error: string }
  | { readonly kind: 'report'; readonly report: ContainerReport }
  | { readonly kind: 'ready'; readonly pid: number };

/** One container's own figures. */
export interface ContainerReport {
  readonly pid: number;
  readonly invocations: number;
  readonly messages: number;
  /** Messages its answers asked to have delivered again, and invocations that threw. */
  readonly retried: number;
  readonly failedInvocations: number;
  /** The handler's import plus the first invocation's runtime construction, as Lambda's init would time it. */
  readonly coldStartMs: number;
  /** CPU seconds the cold start took (the handler's import: tsx transpiling lib/ here; a bundle in Lambda). */
  readonly coldStartCpuSeconds: number;
  readonly meanInvocationMs: number;
  readonly cpuSeconds: number;
  readonly rssMb: number;
  readonly trace?: Record<string, unknown>;
}

type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

const send = (answer: ContainerAnswer) => process.send?.(answer);
// The handlers log every payout as they do in Lambda; here that output goes nowhere.
process.stdout.write = () => true;

const trace: ShippedPathTrace | undefined =
  process.env.BENCH_TRACE === '1' ? startShippedPathTrace() : undefined;
if (trace) {
  if (process.env.DYNAMODB_ENDPOINT) trace.label(new URL(process.env.DYNAMODB_ENDPOINT).host, 'dynamodb');
  if (process.env.PROVIDER_BASE_URL) trace.label(new URL(process.env.PROVIDER_BASE_URL).host, 'provider');
  trace.begin();
}
let handler: Handler | undefined;
let coldStartMs = 0;
let coldStartCpuSeconds = 0;
let invocations = 0;
let messages = 0;
let retried = 0;
let failedInvocations = 0;
let invocationMs = 0;

async function invoke(request: Extract<ContainerRequest, { kind: 'invoke' }>): Promise<void> {
  const started = performance.now();
  const deadline = started + request.remainingMs;
  if (!handler) {
    const cpuBefore = process.cpuUsage();
    const loaded = (await import('../functions/submit-payouts.js')).handler;
    handler = trace ? trace.observe(loaded) : loaded;
    coldStartMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    coldStartCpuSeconds = (cpu.user + cpu.system) / 1e6;
  }
  invocations++;
  messages += request.event.Records.length;
  const context = {
    getRemainingTimeInMillis: () => Math.max(0, Math.floor(deadline - performance.now())),
  } as Context;
  try {
    const response = await handler(request.event, context);
    retried += response?.batchItemFailures.length ?? 0;
    send({ kind: 'done', id: request.id, response });
  } catch (error) {
    failedInvocations++;
    send({ kind: 'failed', id: request.id, error: error instanceof Error ? error.name : String(error) });
  } finally {
    invocationMs += performance.now() - started;
  }
}

process.on('message', (request: ContainerRequest) => {
  if (request.kind === 'invoke') void invoke(request);
  else if (request.kind === 'report') {
    const cpu = process.cpuUsage();
    send({
      kind: 'report',
      report: {
        pid: process.pid,
        invocations,
        messages,
        retried,
        failedInvocations,
        coldStartMs: Math.round(coldStartMs),
        coldStartCpuSeconds: Math.round(coldStartCpuSeconds * 100) / 100,
        meanInvocationMs: invocations ? Math.round(invocationMs / invocations) : 0,
        cpuSeconds: Math.round((cpu.user + cpu.system) / 10_000) / 100,
        rssMb: Math.round(process.memoryUsage().rss / 1_048_576),
        ...(trace && { trace: trace.report() }),
      },
    });
  } else process.exit(0);
});
send({ kind: 'ready', pid: process.pid });
