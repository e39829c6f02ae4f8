/**
 * eligible-to-sent ("Nothing waits"): how long a payout that may go waits for its first provider call, through
 * `npm start`'s real composition (ops API, the local scheduler running the sweeper on the deployed tick, the
 * local SQS FIFO queue with its 5-minute deduplication window, the submission workers), against the sandbox in a
 * process of its own answering 25 % of the calls with a transient fault (503 or 429), with a pause and a resume.
 *
 * Eligible: for the payouts created while paused, the moment the resume was sent; for those created while running,
 * the moment their POST was sent (an upper bound on the delay: the payout exists only once it is written). The
 * first provider call is the sandbox's arrival time of the first request carrying the payout's marker
 * (`GET /__sandbox/marked-requests`), faulted or not. Both clocks are this machine's wall clock.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../lib/local/free-port.js';
import { defaultEngineConfig } from '../lib/payouts/config.js';
import type { MarkedRequest } from '../lib/sandbox/index.js';
import { startSandboxProcess } from './sandbox-process.js';
import { type BenchResult, fixed, forEachConcurrently, projectRoot, quantile, quick } from './support.js';

/** The sweeper's schedule in AWS: `sweep-due-payouts` runs every minute (infra/handlers.ts, `everyMinute`). */
const TICK_MS = 60_000;
/** The bound the issue sets on the slowest payout: one tick for the sweeper to come round, 30 s to send. */
const MAX_BOUND_MS = TICK_MS + 30_000;
const CREATED_WHILE_PAUSED = quick ? 60 : 300;
const CREATED_WHILE_RUNNING = quick ? 20 : 60;
/** Share of provider calls answered with a transient fault: half 503, half 429 (Retry-After: 1). */
const FAULT_RATE = 0.25;
/** The provider's answer time on every call. */
const LATENCY_MS = 100;
/** Below APPROVAL_THRESHOLD_KOBO's default (1,000,000.00 NGN), so none waits for a second person. */
const AMOUNT_KOBO = 150_000;
/** How long a payout that met no ambiguous answer may take to become final (429s and 503s on look-ups). */
const FINAL_BOUND_MS = 5 * TICK_MS;
/**
 * What each ambiguous answer (a 503 to a POST: `unknown`, never resent until proved absent) adds to a payout's
 * bound: the reconciler's grace period (RECONCILE_GRACE_MS, the engine's default), its look at the end of it
 * (within a tick), the wait before the new attempt (retryBaseMs, doubling per absent attempt), the sweeper's
 * tick, and 30 s to send (docs/submission.md, "Bounds").
 */
const perAmbiguousAnswerMs = (nth: number) =>
  defaultEngineConfig.reconcileGraceMs +
  TICK_MS +
  defaultEngineConfig.retryBaseMs * 2 ** (nth - 1) +
  TICK_MS +
  30_000;
/** The bench stops watching this long after the last payout became eligible (BENCH_E2S_WATCH_MIN overrides). */
const WATCH_MS = Number(process.env.BENCH_E2S_WATCH_MIN ?? 40) * 60_000;
const PRINCIPAL = { 'x-ops-principal': 'bench-eligible-to-sent' };

/** What `bench/results/latest.json` reports as `eligibleToSent`. */
export interface EligibleToSentReport {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly tickMs: number;
  readonly payouts: number;
  readonly faultRate: number;
  /** Payouts whose first provider call came more than two ticks after they became eligible, or never. */
  readonly pendingBeyondTwoTicks: number;
  /** The share of marked provider calls the sandbox answered with a fault, as measured. */
  readonly measuredFaultRate: number;
  /** Payouts created while paused that reached the provider before the resume (must be 0). */
  readonly sentWhilePaused: number;
  /** Payouts not succeeded or failed 5 minutes after the last one became eligible, by status then. */
  readonly notFinalAfter5Min: number;
  readonly statusAfter5Min: Readonly<Record<string, number>>;
  /** Payouts whose send was answered ambiguously (503 to a POST: `unknown` until reconciled), and the answers. */
  readonly payoutsWithAmbiguousAnswers: number;
  readonly ambiguousAnswers: number;
  /** Eligible to succeeded or failed (the final transition's time), all payouts final by the end. */
  readonly timeToFinal: {
    readonly noAmbiguousAnswer: { n: number; p50Ms: number; p99Ms: number; maxMs: number };
    readonly afterReconciliation: { n: number; p50Ms: number; p99Ms: number; maxMs: number };
  };
  /** Payouts final later than their own bound (5 min + per ambiguous answer), or still open past it. */
  readonly beyondOwnBound: number;
  /** Payouts not final when the bench stopped watching, by status; each still within its own bound unless counted above. */
  readonly notFinal: number;
  readonly statusAtEnd: Readonly<Record<string, number>>;
  readonly watchedMs: number;
  readonly maxWithinTickPlus30s: boolean;
  /** The 1-minute load average before and after the run: the machine is shared. */
  readonly loadAverage: readonly number[];
}

interface Created {
  readonly id: string;
  readonly eligibleAtMs: number;
  readonly phase: 'paused' | 'running';
  /** The status POST /payouts answered. */
  readonly answered: string;
}

export async function benchEligibleToSent(): Promise<BenchResult & { eligibleToSent: EligibleToSentReport }> {
  const loadBefore = fixed(loadavg()[0] ?? 0, 2);
  const provider = await startSandboxProcess({ latencyMs: LATENCY_MS, projectRoot });
  let stack: ChildProcess | undefined;
  try {
    // Two random faults on every provider path, seeded: the 429 draws only among the calls the 503 spared.
    const half = FAULT_RATE / 2;
    await provider.injectFault({ path: '*', fault: 'error-503', times: 0, probability: half, seed: 1 });
    await provider.injectFault({
      path: '*',
      fault: 'error-429',
      times: 0,
      probability: half / (1 - half),
      seed: 2,
    });
    const opsPort = await freePort();
    const base = `http://127.0.0.1:${opsPort}`;
    const started = startStack({
      // A benchmark measures sending, not sign-in: its requests name their caller by header (unsafe, local only).
      LOCAL_TRUST_PRINCIPAL_HEADER: '1',
      OPS_PORT: String(opsPort),
      EVENTS_PORT: String(await freePort()),
      PROVIDER_BASE_URL: provider.url,
      PROVIDER_TOKEN: provider.token,
      PROVIDER_PIN: provider.pin,
      SCHEDULER_INTERVAL_MS: String(TICK_MS),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
    stack = started.child;
    await waitFor(
      () => started.output().includes(`ops API ready on ${base}`),
      120_000,
      () => {
        if (started.child.exitCode !== null) throw new Error(`npm start exited:\n${started.output()}`);
      },
    );
    const readyAtMs = Date.now();

    await expectOk(post(`${base}/controls/pause`, { reason: 'bench eligible-to-sent' }), 'pause');
    const pausedIds: string[] = [];
    await forEachConcurrently(CREATED_WHILE_PAUSED, 8, async (index) => {
      const { id } = await createPayout(base, `paused-${index}`);
      pausedIds.push(id);
    });
    // Stay paused until a sweeper tick has run: the pause must hold through it.
    const pausedUntilMs = readyAtMs + TICK_MS + 5_000;
    if (Date.now() < pausedUntilMs) await delay(pausedUntilMs - Date.now());
    const resumedAtMs = Date.now();
    await expectOk(post(`${base}/controls/resume`, {}), 'resume');
    const created: Created[] = pausedIds.map((id) => ({
      id,
      eligibleAtMs: resumedAtMs,
      phase: 'paused',
      answered: 'pending',
    }));

    // Created while running, spread over one tick, so they meet the sweeper at every point of its cycle.
    const spacingMs = TICK_MS / CREATED_WHILE_RUNNING;
    for (let index = 0; index < CREATED_WHILE_RUNNING; index++) {
      const sentAtMs = Date.now();
      const { id, status } = await createPayout(base, `running-${index}`);
      created.push({ id, eligibleAtMs: sentAtMs, phase: 'running', answered: status });
      const nextAtMs = sentAtMs + spacingMs;
      if (Date.now() < nextAtMs) await delay(nextAtMs - Date.now());
    }
    const lastEligibleMs = Math.max(...created.map((payout) => payout.eligibleAtMs));

    // Every payout called at least once (or two ticks past the last eligibility), then final (or the bound).
    const ids = new Set(created.map((payout) => payout.id));
    await waitFor(
      async () => new Set((await markedRequests(provider.url)).map((r) => r.payoutId)).size >= ids.size,
      lastEligibleMs + 2 * TICK_MS + 5_000 - Date.now(),
    ).catch(() => undefined);
    const eligibleOf = new Map(created.map((payout) => [payout.id, payout.eligibleAtMs]));
    const watched = await watchUntilFinal(
      base,
      eligibleOf,
      lastEligibleMs + FINAL_BOUND_MS,
      lastEligibleMs + WATCH_MS,
    );
    const notFinalIds = [...watched.details].flatMap(([id, detail]) =>
      FINAL.has(detail.status) ? [] : [id],
    );
    const notFinal = notFinalIds.length;
    const finalTimes = (withAmbiguous: boolean) =>
      created.flatMap((payout) => {
        const detail = watched.details.get(payout.id);
        if (!detail || !FINAL.has(detail.status) || ambiguousAnswersOf(detail) > 0 !== withAmbiguous)
          return [];
        const at = Date.parse(detail.audit.at(-1)?.at ?? '');
        return Number.isFinite(at) ? [Math.max(0, at - payout.eligibleAtMs)] : [];
      });
    const summary = (times: number[]) => ({
      n: times.length,
      p50Ms: Math.round(quantile(times, 0.5)),
      p99Ms: Math.round(quantile(times, 0.99)),
      maxMs: times.length === 0 ? 0 : Math.round(Math.max(...times)),
    });
    const beyondOwnBound = created.filter((payout) => {
      const detail = watched.details.get(payout.id);
      if (!detail) return true;
      const bound = payout.eligibleAtMs + boundOf(detail);
      if (!FINAL.has(detail.status)) return watched.endedAtMs > bound;
      return Date.parse(detail.audit.at(-1)?.at ?? '') > bound;
    }).length;
    const ambiguousCounts = [...watched.details.values()].map(ambiguousAnswersOf);

    const marked = await markedRequests(provider.url);
    if (notFinalIds.length > 0) {
      await describeUnfinished(base, notFinalIds, created, marked, resumedAtMs);
    }
    const firstCallMs = new Map<string, number>();
    for (const request of marked) {
      if (!firstCallMs.has(request.payoutId)) firstCallMs.set(request.payoutId, request.atMs);
    }
    const waits = created.map((payout) => {
      const first = firstCallMs.get(payout.id);
      return first === undefined ? Number.POSITIVE_INFINITY : Math.max(0, first - payout.eligibleAtMs);
    });
    const sentWhilePaused = created.filter(
      (payout) => payout.phase === 'paused' && (firstCallMs.get(payout.id) ?? Infinity) < resumedAtMs,
    ).length;
    const pendingBeyondTwoTicks = waits.filter((wait) => wait > 2 * TICK_MS).length;
    const ours = marked.filter((request) => ids.has(request.payoutId));
    const measuredFaultRate = ours.length === 0 ? 0 : ours.filter((r) => r.fault).length / ours.length;
    const finite = waits.filter(Number.isFinite);
    const maxMs = Math.max(...waits);
    const maxWithinTickPlus30s = maxMs <= MAX_BOUND_MS;
    const report: EligibleToSentReport = {
      p50Ms: Math.round(quantile(finite, 0.5)),
      p99Ms: Math.round(quantile(finite, 0.99)),
      maxMs: Number.isFinite(maxMs) ? Math.round(maxMs) : -1,
      tickMs: TICK_MS,
      payouts: created.length,
      faultRate: FAULT_RATE,
      pendingBeyondTwoTicks,
      measuredFaultRate: fixed(measuredFaultRate, 3),
      sentWhilePaused,
      notFinalAfter5Min: Object.entries(watched.statusAfter5Min)
        .filter(([status]) => !FINAL.has(status))
        .reduce((sum, [, n]) => sum + n, 0),
      statusAfter5Min: watched.statusAfter5Min,
      payoutsWithAmbiguousAnswers: ambiguousCounts.filter((n) => n > 0).length,
      ambiguousAnswers: ambiguousCounts.reduce((sum, n) => sum + n, 0),
      timeToFinal: {
        noAmbiguousAnswer: summary(finalTimes(false)),
        afterReconciliation: summary(finalTimes(true)),
      },
      beyondOwnBound,
      notFinal,
      statusAtEnd: countByStatus(watched.details),
      watchedMs: watched.endedAtMs - lastEligibleMs,
      maxWithinTickPlus30s,
      loadAverage: [loadBefore, fixed(loadavg()[0] ?? 0, 2)],
    };
    const verdict = (ok: boolean) => (ok ? 'yes' : 'NO (assertion failed)');
    const rowOf = (phase: Created['phase'], label: string) => {
      const phaseWaits = created.flatMap((payout, index) =>
        payout.phase === phase ? [waits[index] as number] : [],
      );
      const phaseFinite = phaseWaits.filter(Number.isFinite);
      return {
        payouts: label,
        n: phaseWaits.length,
        'p50 ms': Math.round(quantile(phaseFinite, 0.5)),
        'p99 ms': Math.round(quantile(phaseFinite, 0.99)),
        'max ms': Number.isFinite(Math.max(...phaseWaits)) ? Math.round(Math.max(...phaseWaits)) : 'never',
        'beyond 2 ticks': phaseWaits.filter((wait) => wait > 2 * TICK_MS).length,
      };
    };
    const assertions = [
      `max <= tick + 30 s (${MAX_BOUND_MS} ms): ${verdict(maxWithinTickPlus30s)}`,
      `no payout pending beyond two ticks after eligible: ${verdict(pendingBeyondTwoTicks === 0)}`,
      `none sent while paused: ${verdict(sentWhilePaused === 0)}`,
      `every payout final within its own bound (5 min, plus ${Math.round(perAmbiguousAnswerMs(1) / 1000)} s for an ambiguous answer, more for each after): ${verdict(beyondOwnBound === 0)}`,
    ];
    for (const line of assertions) process.stderr.write(`eligible-to-sent: ${line}\n`);
    if (!maxWithinTickPlus30s || pendingBeyondTwoTicks > 0 || sentWhilePaused > 0 || beyondOwnBound > 0)
      process.exitCode = 1;
    return {
      name: 'eligible-to-sent',
      title: `Eligible to first provider call through npm start (tick ${TICK_MS / 1000} s, ${FAULT_RATE * 100} % transient faults, L = ${LATENCY_MS} ms)`,
      rows: [
        rowOf('paused', 'created while paused, eligible at resume'),
        rowOf('running', 'created while running, eligible when POSTed'),
        {
          payouts: 'all',
          n: created.length,
          'p50 ms': report.p50Ms,
          'p99 ms': report.p99Ms,
          'max ms': report.maxMs,
          'beyond 2 ticks': pendingBeyondTwoTicks,
        },
      ],
      notes: [
        ...assertions,
        `answered inline while running: ${created.filter((p) => p.phase === 'running' && p.answered !== 'pending').length} of ${CREATED_WHILE_RUNNING} (the rest pending, for the sweeper)`,
        `provider calls answered with a fault: ${fixed(measuredFaultRate * 100, 1)} % of ${ours.length}`,
        `5 min after the last eligible: ${JSON.stringify(report.statusAfter5Min)}; at the end (${fixed(report.watchedMs / 60_000, 1)} min): ${JSON.stringify(report.statusAtEnd)}`,
        `ambiguous answers (503 to a POST, unknown until reconciled): ${report.ambiguousAnswers} on ${report.payoutsWithAmbiguousAnswers} payouts`,
        `eligible to final, no ambiguous answer: ${JSON.stringify(report.timeToFinal.noAmbiguousAnswer)}; after reconciliation: ${JSON.stringify(report.timeToFinal.afterReconciliation)}`,
        `load average (1 min) ${report.loadAverage.join(' -> ')} on a shared 2-core machine`,
      ],
      eligibleToSent: report,
    };
  } finally {
    if (stack) await stopStack(stack);
    await provider.close();
  }
}

/** `npm start` as a user runs it, in its own process group, so stopping it stops its DynamoDB Local too. */
function startStack(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const { PROVIDER_BASE_URL: _url, PROVIDER_TOKEN: _token, PROVIDER_PIN: _pin, ...inherited } = process.env;
  const child = spawn('npm', ['start', '--silent'], {
    cwd: projectRoot,
    env: { ...inherited, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const log = process.env.BENCH_STACK_LOG;
  if (log) writeFileSync(log, '');
  const keep = (chunk: Buffer) => {
    if (log) appendFileSync(log, chunk);
    // Only the tail matters (the ready line, or why it stopped); the JSON logs of a long run are large.
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

async function stopStack(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  process.kill(-child.pid, 'SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), delay(30_000).then(() => false)]);
  if (!stopped && child.exitCode === null) {
    process.kill(-child.pid, 'SIGKILL');
    await exited;
  }
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...PRINCIPAL, ...headers },
    body: JSON.stringify(body),
  });

async function expectOk(response: Promise<Response>, what: string): Promise<void> {
  const answer = await response;
  if (!answer.ok) throw new Error(`${what} answered ${answer.status}: ${await answer.text()}`);
}

async function createPayout(base: string, key: string): Promise<{ id: string; status: string }> {
  const response = await post(
    `${base}/payouts`,
    {
      type: 'bank_transfer',
      amount: AMOUNT_KOBO,
      currency: 'NGN',
      narration: `bench eligible ${key}`,
      beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' },
    },
    { 'idempotency-key': `bench-eligible-${key}` },
  );
  const body = (await response.json()) as { id?: string; status?: string };
  if (response.status !== 201 || !body.id || !body.status)
    throw new Error(`POST /payouts answered ${response.status}: ${JSON.stringify(body)}`);
  return { id: body.id, status: body.status };
}

async function markedRequests(sandboxUrl: string): Promise<MarkedRequest[]> {
  const response = await fetch(`${sandboxUrl}/__sandbox/marked-requests`);
  if (!response.ok) throw new Error(`marked-requests answered ${response.status}`);
  return ((await response.json()) as { requests: MarkedRequest[] }).requests;
}

const FINAL: ReadonlySet<string> = new Set(['succeeded', 'failed']);

interface Detail {
  readonly status: string;
  readonly audit: readonly { readonly at: string; readonly from: string | null; readonly to: string }[];
}

/** The ambiguous answers a payout met: its submitter's moves from `submitting` to `unknown`. */
const ambiguousAnswersOf = (detail: Detail) =>
  detail.audit.filter((entry) => entry.from === 'submitting' && entry.to === 'unknown').length;

/** A payout's own bound from eligible to final: 5 min, plus what each ambiguous answer it met adds. */
function boundOf(detail: Detail): number {
  let bound = FINAL_BOUND_MS;
  for (let nth = 1; nth <= ambiguousAnswersOf(detail); nth++) bound += perAmbiguousAnswerMs(nth);
  return bound;
}

function countByStatus(details: ReadonlyMap<string, Detail>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of details.values()) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/**
 * Polls every payout not yet final until all are, or every open one is past its own bound, or `stopAtMs`;
 * notes the statuses at `fiveMinAtMs`. Answers each payout's last status and audit trail.
 */
async function watchUntilFinal(
  base: string,
  eligibleOf: ReadonlyMap<string, number>,
  fiveMinAtMs: number,
  stopAtMs: number,
): Promise<{ details: Map<string, Detail>; statusAfter5Min: Record<string, number>; endedAtMs: number }> {
  const details = new Map<string, Detail>();
  let open = [...eligibleOf.keys()];
  let statusAfter5Min: Record<string, number> | undefined;
  for (;;) {
    const still: string[] = [];
    await forEachConcurrently(open.length, 4, async (index) => {
      const id = open[index] as string;
      const detail = (await (await fetch(`${base}/payouts/${id}`, { headers: PRINCIPAL })).json()) as Detail;
      details.set(id, detail);
      if (!FINAL.has(detail.status)) still.push(id);
    });
    open = still;
    const now = Date.now();
    if (statusAfter5Min === undefined && (now >= fiveMinAtMs || open.length === 0)) {
      statusAfter5Min = countByStatus(details);
    }
    const allPastBound = open.every((id) => {
      const detail = details.get(id);
      return detail !== undefined && now > (eligibleOf.get(id) ?? now) + boundOf(detail);
    });
    if (open.length === 0 || (now >= fiveMinAtMs && allPastBound) || now >= stopAtMs) {
      return { details, statusAfter5Min: statusAfter5Min ?? countByStatus(details), endedAtMs: now };
    }
    await delay(10_000);
  }
}

async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  check: () => void = () => undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    check();
    if (await condition()) return;
    await delay(500);
  }
  throw new Error(`not reached within ${timeoutMs} ms`);
}

/** For each payout not final: its status, submissions, audit trail and provider calls, on stderr. */
async function describeUnfinished(
  base: string,
  ids: readonly string[],
  created: readonly Created[],
  marked: readonly MarkedRequest[],
  resumedAtMs: number,
): Promise<void> {
  for (const id of ids) {
    const payout = created.find((one) => one.id === id);
    const since = payout?.eligibleAtMs ?? resumedAtMs;
    const detail = (await (await fetch(`${base}/payouts/${id}`, { headers: PRINCIPAL })).json()) as Record<
      string,
      unknown
    >;
    const calls = marked
      .filter((request) => request.payoutId === id)
      .map(
        (request) =>
          `#${request.attempt} ${request.method} ${request.path} +${request.atMs - since}ms ${request.fault ?? 'ok'}`,
      );
    process.stderr.write(
      `eligible-to-sent: not final ${id} (${payout?.phase}, answered ${payout?.answered}): ${JSON.stringify(detail)}\n  provider calls: ${calls.join('; ') || 'none'}\n`,
    );
  }
}
