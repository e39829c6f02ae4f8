/**
 * Where a payout's time goes on the shipped path (`BENCH_TRACE=1`): every outgoing HTTP request of the
 * handlers' process timed per destination (DynamoDB Local, the provider, the local SQS stand-in), through
 * Node's and undici's diagnostics channels, so nothing in lib/ or functions/ is changed to measure it; the
 * worker invocations (queue wait, duration); the process's CPU time and event-loop delay.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';

interface Timings {
  count: number;
  totalMs: number;
  maxMs: number;
  samples: number[];
}

const timings = (): Timings => ({ count: 0, totalMs: 0, maxMs: 0, samples: [] });

function add(into: Timings, ms: number): void {
  into.count++;
  into.totalMs += ms;
  into.maxMs = Math.max(into.maxMs, ms);
  into.samples.push(ms);
}

function summary(of: Timings) {
  const sorted = [...of.samples].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return {
    count: of.count,
    meanMs: of.count ? Math.round(of.totalMs / of.count) : 0,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    maxMs: Math.round(of.maxMs),
  };
}

export interface ShippedPathTrace {
  /** Wraps the worker: times each invocation and how long its messages waited in the queue. */
  observe(
    consumer: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>,
  ): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
  /** Names a destination (`host:port`) in the report. */
  label(hostPort: string, name: string): void;
  /** Forgets what was measured so far (the backlog's creation): the clock starts now. */
  begin(): void;
  report(): Record<string, unknown>;
}

export function startShippedPathTrace(): ShippedPathTrace {
  const byDestination = new Map<string, Timings>();
  const labels = new Map<string, string>();
  const started = new WeakMap<object, { at: number; key: string }>();
  const destination = (key: string) => {
    const entry = byDestination.get(key) ?? timings();
    byDestination.set(key, entry);
    return entry;
  };
  // node:http (the AWS SDK's DynamoDB client).
  subscribe('http.client.request.start', (message) => {
    const { request } = message as { request: { host: string; getHeader(name: string): unknown } & object };
    const host = String(request.getHeader('host') ?? request.host);
    const target =
      String(request.getHeader('x-amz-target') ?? '')
        .split('.')
        .pop() ?? '';
    started.set(request, { at: performance.now(), key: `${host} ${target}` });
  });
  subscribe('http.client.response.finish', (message) => {
    const { request } = message as { request: object };
    const start = started.get(request);
    if (start) add(destination(start.key), performance.now() - start.at);
  });
  // undici (the provider client, and fetch for SQS): headers received = the answer is back.
  subscribe('undici:request:create', (message) => {
    const { request } = message as { request: { origin: string; path: string } & object };
    const origin = new URL(request.origin).host;
    started.set(request, { at: performance.now(), key: `${origin} ${request.path.split('?')[0]}` });
  });
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const start = started.get(request);
    if (start) add(destination(start.key), performance.now() - start.at);
    if (start?.key.endsWith('/settlement/instant/payout')) {
      sends.push({ at: start.at, answeredAt: performance.now(), status: response.statusCode });
    }
  });
  let sends: { at: number; answeredAt: number; status: number }[] = [];
  let invocations = timings();
  let queueWait = timings();
  let handedBack = 0;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let cpuAtStart = process.cpuUsage();
  let wallAtStart = performance.now();
  return {
    observe(consumer) {
      return async (event, context) => {
        const at = performance.now();
        const now = Date.now();
        for (const record of event.Records) add(queueWait, now - Number(record.attributes.SentTimestamp));
        try {
          const answer = await consumer(event, context);
          handedBack += answer.batchItemFailures.length;
          return answer;
        } catch (error) {
          handedBack += event.Records.length;
          throw error;
        } finally {
          add(invocations, performance.now() - at);
        }
      };
    },
    label(hostPort, name) {
      labels.set(hostPort, name);
    },
    begin() {
      byDestination.clear();
      invocations = timings();
      queueWait = timings();
      handedBack = 0;
      sends = [];
      loop.reset();
      cpuAtStart = process.cpuUsage();
      wallAtStart = performance.now();
    },
    report() {
      const cpu = process.cpuUsage(cpuAtStart);
      const wallMs = performance.now() - wallAtStart;
      const requests: Record<string, unknown> = {};
      for (const [key, value] of [...byDestination].sort((a, b) => b[1].totalMs - a[1].totalMs)) {
        const [host = '', what = ''] = key.split(' ');
        requests[`${labels.get(host) ?? host} ${what}`.trim()] = summary(value);
      }
      return {
        wallSeconds: Math.round(wallMs) / 1000,
        cpuSecondsOfThisProcess: Math.round((cpu.user + cpu.system) / 1000) / 1000,
        cpuShareOfOneCore: Math.round(((cpu.user + cpu.system) / 1000 / wallMs) * 1000) / 1000,
        eventLoopDelayMs: {
          p50: Math.round(loop.percentile(50) / 1e6),
          p99: Math.round(loop.percentile(99) / 1e6),
          max: Math.round(loop.max / 1e6),
        },
        invocations: summary(invocations),
        queueWaitPerMessage: summary(queueWait),
        /** Messages an invocation handed back (partial batch response) or lost by failing. */
        handedBackMessages: handedBack,
        payoutSends: sendTimeline(sends),
        requests,
      };
    },
  };
}

/**
 * The payout requests as the handlers sent them: the most started in any one second (what a provider counting
 * a sliding second sees, give or take the network), and the time no request started for longer than 100 ms
 * (the fleet idle while a backlog waits).
 */
function sendTimeline(sends: readonly { at: number; answeredAt: number; status: number }[]) {
  const starts = sends.map((send) => send.at).sort((a, b) => a - b);
  let mostInOneSecond = 0;
  for (let first = 0, last = 0; last < starts.length; last++) {
    while ((starts[last] as number) - (starts[first] as number) >= 1000) first++;
    mostInOneSecond = Math.max(mostInOneSecond, last - first + 1);
  }
  let idleMs = 0;
  for (let index = 1; index < starts.length; index++) {
    const gap = (starts[index] as number) - (starts[index - 1] as number);
    if (gap > 100) idleMs += gap;
  }
  if (process.env.BENCH_TRACE_SENDS) {
    writeFileSync(process.env.BENCH_TRACE_SENDS, JSON.stringify(sends));
  }
  return {
    count: sends.length,
    answered429: sends.filter((send) => send.status === 429).length,
    mostStartedInOneSecond: mostInOneSecond,
    idleSecondsOver100Ms: Math.round(idleMs) / 1000,
  };
}
