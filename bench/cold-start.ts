import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, Context, SQSEvent } from 'aws-lambda';
import { build as build_ } from 'esbuild';
import { buildHandlers, handlerEntry } from '../infra/bundling/build-handler.js';
import { functionEnvironment } from '../infra/config/function-environment.js';
import { HANDLERS, type HandlerName } from '../infra/handlers.js';
import { apiFunctionServing } from '../lib/api/functions/index.js';
import { payoutsApi } from '../lib/api/functions/payouts.js';
import { payoutRequested } from '../lib/events/rule-targets.js';
import { settlementAvailable } from '../lib/events/settlement-target.js';
import { workSubmissionQueue } from '../lib/jobs/submit-payouts.js';
import { sweepDuePayouts } from '../lib/jobs/sweep-due-payouts.js';
import { LocalSqsQueue } from '../lib/local/local-sqs-queue.js';
import { serveLocalSqs } from '../lib/local/sqs-endpoint.js';
import { stageConfigOf } from '../lib/local/submission-workers.js';
import { payoutSweeper } from '../lib/payouts/payout-sweeper.js';
import { createRuntime, type Runtime } from '../lib/runtime/runtime.js';
import { addSettlement } from '../lib/sandbox/index.js';
import { DynamoDbSettlementDecisionStore } from '../lib/settlement/store/dynamodb-decision-store.js';
import { silentLogger } from '../lib/shared/logger.js';
import {
  type BenchResult,
  bankTransfer,
  createCommand,
  type EngineRig,
  fixed,
  median,
  projectRoot,
  quantile,
  quick,
  type Row,
  startEngineRig,
} from './support.js';

/** Timed cold runs of each handler; `BENCH_COLD_RUNS` overrides, for a steadier median while comparing changes. */
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? (quick ? 3 : 21));
/** Cold runs of every handler made and thrown away first: the OS file cache, the sandbox and the sockets settle. */
const DISCARDED_RUNS = 2;
/**
 * Rounds of each side's own requests against DynamoDB Local before anything is timed. DynamoDB Local is a JVM:
 * until its JIT has compiled a request path, that path runs several times slower (a transaction took ~25 ms
 * in the first cold runs and ~4 ms once warm), and transactions, which the handlers use and the peer does not,
 * warm up last. DynamoDB in AWS is never cold, so neither is the database here; only the function is. Each
 * handler warms its own paths (`ownCode`): when only the engine's create and sweep were warmed, the rows whose
 * requests differ (the settlement's decision and deferral in its creating transaction, the workers' pacer, the
 * create already claimed) met a database still cold for them, 2 to 4 ms a row (docs/cold-start.md).
 */
const DATABASE_WARM_UP = quick ? 40 : 150;
/** Git-ignored: bundles must sit inside the project so the external `@aws-sdk/*` resolve from node_modules. */
const outDir = join(projectRoot, '.cache', 'bench-bundles');
/** The peer built by NodejsFunction's defaults for nodejs22.x: CommonJS, `@aws-sdk/*` external, not minified. */
const PEER_NODEJS_DEFAULT = 'peer-nodejsfunction-default';
/** The peer built by the project's own build (infra/bundling/build-handler.ts), like every function here. */
const PEER_LIKE_OURS = 'peer-bundled-like-ours';
/**
 * The conventional peer (issue 47, bench/peer/conventional-handler.ts): payout-requested's whole job for the same
 * event (create with idempotency, the daily cap and the audit in one transaction, the pause read, the provider
 * call, the outcome) on the conventional stack, built by NodejsFunction's defaults as PEER_NODEJS_DEFAULT is.
 */
const PEER_CONVENTIONAL = 'peer-conventional-nodejsfunction-default';
/**
 * The conventional peer's own requests, before anything is timed: this many invocations of its bundle in one
 * process of its own (the first cold, the rest warm), which also give its warm figure (`warmMs`).
 */
const CONVENTIONAL_WARM_UP = DATABASE_WARM_UP;
/**
 * The same two builds, each handed a settlement to check against the provider's listing before paying it: the
 * settlement handler's own work done the common way. Reported beside the settlement's row, for comparison only:
 * issue 18's targets are judged against the peers above.
 */
const VERIFYING_PEERS = [
  { name: 'peer-nodejsfunction-default-verifying', bundle: PEER_NODEJS_DEFAULT, variant: 'nv' },
  { name: 'peer-bundled-like-ours-verifying', bundle: PEER_LIKE_OURS, variant: 'ov' },
] as const;
/** Targets of issue 18, as ratios and differences within one run. */
const WITHIN_MS_OF_PEER_LIKE_OURS = 15;
const RESULT_PREFIX = 'BENCH_RESULT ';
/** Extra `node` flags for every child, e.g. `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` to profile. */
const NODE_ARGS = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const CHILD_TIMEOUT_MS = 60_000;

/**
 * `BENCH_TRACE_DIR=dir`: each child also writes `dir/<pid>-<function>.txt`, the timeline of its requests (DynamoDB
 * over node:http, the provider over undici) in ms from the process's start; `BENCH_NODE_ARGS` can add a CPU
 * profile to line it up with, by the `origin-us` line (a profile's timestamps are µs on the same clock). Off by
 * default: subscribing to the channels costs time of its own.
 */
const TRACE_DIR = process.env.BENCH_TRACE_DIR;
const TRACER = `
const dc = await import('node:diagnostics_channel');
const lines = [];
const mark = (what) => lines.push(performance.now().toFixed(1) + ' ' + what);
// Where performance.now()'s zero lies on the clock of a CPU profile's timestamps (µs): lines up the two.
lines.push('0.0 origin-us ' + (process.hrtime.bigint() / 1000n - BigInt(Math.round(performance.now() * 1000))));
dc.subscribe('http.client.request.start', ({ request }) => {
  const what = request.getHeader('x-amz-target') ?? request.path;
  mark('start ' + what);
  request.once('response', (response) =>
    response.once('end', () => mark('end ' + what + (request.reusedSocket ? '' : ' (new connection)'))),
  );
});
dc.subscribe('undici:request:create', ({ request }) => mark('start ' + request.path));
dc.subscribe('undici:client:connected', () => mark('connected (undici)'));
dc.subscribe('undici:request:trailers', ({ request }) => mark('end ' + request.path));
const { writeFileSync } = await import('node:fs');
process.on('exit', () => writeFileSync(process.env.BENCH_TRACE_DIR + '/' + process.pid + '-' + process.argv[2].split('/').at(-2) + '.txt', lines.join('\\n') + '\\n'));
globalThis.benchTraceMark = mark;
`;

/** The Lambda context's plain fields, the same for the cold children and for Powertools during the warm-up. */
const CONTEXT_FIELDS = {
  functionName: 'bench',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench',
  memoryLimitInMB: '1024',
  logGroupName: 'bench',
  logStreamName: 'bench',
  callbackWaitsForEmptyEventLoop: true,
};
/** The time left the peer's context reports, and Powertools' during the warm-up: an invocation just begun. */
const REMAINING_MS = 60_000;

/** Imports a bundle, hands it one event, prints timings; what a Lambda init + first invoke does. */
const INVOKER = `${TRACE_DIR ? TRACER : ''}
const started = performance.now();
// Every bundle here is CommonJS (.cjs), loaded with require() as Lambda's runtime loads it.
const mod = (await import('node:module')).createRequire(import.meta.url)(process.argv[2]);
const imported = performance.now();
globalThis.benchTraceMark?.('imported');
const context = {
  ...${JSON.stringify(CONTEXT_FIELDS)},
  awsRequestId: 'bench-' + process.pid,
  // An invocation just begun: its function's whole timeout is left (argv[4]).
  getRemainingTimeInMillis: () => Number(process.argv[4]),
};
const result = await mod.handler(JSON.parse(process.argv[3]), context);
const handled = performance.now();
const cpu = process.cpuUsage();
process.stdout.write('\\n${RESULT_PREFIX}' + JSON.stringify({ answeredMs: handled, importMs: imported - started, handleMs: handled - imported, cpuMs: (cpu.user + cpu.system) / 1000, result }) + '\\n');
process.exit(0);
`;

/**
 * Imports a bundle and hands it argv[4] events one after another in the same process, each the event of argv[3]
 * under its own id: the first invocation cold, the others warm. Prints each invocation's ms and any that did not
 * succeed.
 */
const WARM_INVOKER = `
const mod = (await import('node:module')).createRequire(import.meta.url)(process.argv[2]);
const event = JSON.parse(process.argv[3]);
const handleMs = [];
const unsucceeded = [];
for (let index = 0; index < Number(process.argv[4]); index++) {
  const context = {
    ...${JSON.stringify(CONTEXT_FIELDS)},
    awsRequestId: 'bench-' + process.pid + '-' + index,
    getRemainingTimeInMillis: () => ${REMAINING_MS},
  };
  const started = performance.now();
  const result = await mod.handler({ ...event, id: event.id + '-' + index }, context);
  handleMs.push(performance.now() - started);
  if (result?.status !== 'succeeded') unsucceeded.push(result);
}
const cpu = process.cpuUsage();
process.stdout.write('\\n${RESULT_PREFIX}' + JSON.stringify({ answeredMs: performance.now(), importMs: 0, handleMs: 0, cpuMs: (cpu.user + cpu.system) / 1000, result: { handleMs, unsucceeded } }) + '\\n');
process.exit(0);
`;

/** A bare start: how long node takes to reach the first line of user code. */
const BARE = `const answeredMs = performance.now(); const cpu = process.cpuUsage(); process.stdout.write('\\n${RESULT_PREFIX}' + JSON.stringify({ answeredMs, importMs: 0, handleMs: 0, cpuMs: (cpu.user + cpu.system) / 1000 }) + '\\n');`;

interface Timing {
  /** From spawn to the process's exit. */
  wallMs: number;
  /** From the process's own start (performance.timeOrigin) to the handler's answer: what Lambda waits for. */
  answeredMs: number;
  importMs: number;
  handleMs: number;
  /**
   * CPU the process had used by then, every thread (process.cpuUsage: user + system): steadier than the wall
   * clock between two builds of one handler, for a change that removes work, but not what Lambda waits for.
   */
  cpuMs: number;
  result: unknown;
}

/** A money handler of the project, timed cold while it pays (or hands over) exactly one payout. */
interface MoneyHandler {
  /** The row, its key in `coldStart.handlers`, and the function whose bundle runs. */
  readonly name: HandlerName;
  readonly what: string;
  /** Provider requests one cold invocation makes: the payout, plus the look-ups its path needs. */
  readonly providerCalls: number;
  /**
   * Runs with the submission queue as deployed (SUBMIT_QUEUE_URL, here the local SQS stand-in) and must hand it
   * exactly this many messages.
   */
  readonly enqueues?: number;
  /** Readies the state this run's event pays (a due payout, a queued one, a fresh settlement) and builds the event. */
  readonly prepare: (rig: EngineRig, run: number) => Promise<unknown>;
  /**
   * What the function's handler runs, in this process, on a runtime built from the same environment: how
   * DynamoDB Local is warmed with this row's own requests before anything is timed (warmUpDatabase).
   */
  readonly ownCode: (runtimes: WarmUpRuntimes, event: unknown, remainingMs: number) => Promise<unknown>;
  /** Untimed, after the run: pays what the run handed over, so every run starts from the same backlog. */
  readonly settle?: (rig: EngineRig) => Promise<unknown>;
  /** Checks what its event names with the provider before paying: also compared with the verifying peers. */
  readonly verifiesWithProvider?: true;
  /**
   * Creates and pays its payout in the one invocation, the conventional peer's job: also compared with that peer
   * (`againstConventionalPeer`).
   */
  readonly doesTheConventionalPeersJob?: true;
}

/** The runtimes the warm-up runs the handlers' own code on: as deployed (with the submission queue), and without. */
interface WarmUpRuntimes {
  readonly withQueue: Runtime;
  readonly withoutQueue: Runtime;
}

/** A fresh successful merchant settlement in the sandbox, for one run to pay out. */
const freshSettlement = (rig: EngineRig) =>
  addSettlement(rig.sandbox.url, { category: 'MERCHANT_SETTLEMENT', amountKobo: 250_000 });

/** A "Payout Requested" event of a small bank transfer, as EventBridge delivers it: payout-requested's, and the conventional peer's. */
function payoutRequestedEvent(id: string) {
  return {
    version: '0',
    id,
    'detail-type': 'Payout Requested',
    source: 'merchant.payouts',
    account: '123456789012',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: [],
    detail: { version: '1', payout: bankTransfer() },
  };
}

/** A payout due now, for the sweeper to find, and the schedule's event. */
async function duePayout(rig: EngineRig, run: number) {
  await rig.engine.create(createCommand(bankTransfer(), `cold-sweep-${process.pid}-${run}`));
  return { 'detail-type': 'Scheduled Event' };
}

const MONEY_HANDLERS: readonly MoneyHandler[] = [
  {
    // As deployed: the stack gives the sweeper the submission queue whenever it deploys the submit-payouts
    // workers (infra/stacks/payouts-stack.ts), and the workers pay (their row below).
    name: 'sweep-due-payouts',
    what: 'sweeping 1 due payout and handing it to the submission queue (SQS), as deployed',
    providerCalls: 0,
    enqueues: 1,
    prepare: duePayout,
    ownCode: (runtimes, _event, remainingMs) => sweepDuePayouts(runtimes.withQueue, remainingMs),
    settle: (rig) => payoutSweeper(rig.engine).sweep({ stopStartingAt: Date.now() + 30_000 }),
  },
  {
    name: 'submit-payouts',
    what: 'submitting 1 queued payout (one SQS message)',
    providerCalls: 1,
    prepare: async (rig, run) => {
      const { payout } = await rig.engine.create(
        createCommand(bankTransfer(), `cold-submit-${process.pid}-${run}`),
      );
      return sqsEvent(run, { payoutId: payout.id, version: payout.version });
    },
    ownCode: (runtimes, event, remainingMs) =>
      workSubmissionQueue(runtimes.withoutQueue, event as SQSEvent, remainingMs),
  },
  {
    // The ops API's function serving POST /payouts (lib/api/functions: api-payouts).
    name: apiFunctionServing('POST', '/payouts'),
    what: 'POST /payouts: creating and paying 1 payout',
    providerCalls: 1,
    doesTheConventionalPeersJob: true,
    prepare: async (_rig, run) => apiCreatePayout(`cold-api-${process.pid}-${run}`),
    ownCode: (runtimes, event, remainingMs) =>
      payoutsApi.routerOn(runtimes.withoutQueue)(event as APIGatewayProxyEventV2, { remainingMs }),
  },
  {
    name: 'payout-requested',
    what: '"Payout Requested": creating and paying 1 payout',
    providerCalls: 1,
    doesTheConventionalPeersJob: true,
    prepare: async (_rig, run) => payoutRequestedEvent(`cold-event-${process.pid}-${run}`),
    ownCode: (runtimes, event) => payoutRequested(runtimes.withoutQueue, event),
  },
  {
    // As deployed: the stack gives it the submission queue whenever it deploys the workers, who pay.
    name: 'settlement-available',
    what: '"Settlement Available": looking the settlement up and handing its payout to the submission queue (SQS), as deployed',
    // The settlement is read fresh from the provider's listing before it is paid (SettlementService.payOut).
    providerCalls: 1,
    enqueues: 1,
    verifiesWithProvider: true,
    prepare: async (rig, run) => ({
      version: '0',
      id: `cold-settlement-${process.pid}-${run}`,
      'detail-type': 'Settlement Available',
      source: 'merchant.payouts',
      account: '123456789012',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [],
      detail: { version: '1', settlementId: await freshSettlement(rig) },
    }),
    ownCode: (runtimes, event) => settlementAvailable(runtimes.withQueue, event),
    settle: (rig) => payoutSweeper(rig.engine).sweep({ stopStartingAt: Date.now() + 30_000 }),
  },
];

/** How a peer build was made, reported beside its figures. */
const PEER_BUILDS = {
  [PEER_NODEJS_DEFAULT]: {
    description:
      "NodejsFunction's defaults for nodejs22.x: esbuild CommonJS, platform node, target node22, @aws-sdk/* external (resolved from node_modules, as Lambda resolves the runtime's SDK), not minified, no source map; loaded with require()",
    format: 'cjs',
    external: ['@aws-sdk/*'],
    minify: false,
  },
  [PEER_LIKE_OURS]: {
    description:
      "The project's own build (infra/bundling/build-handler.ts, the one the CDK construct runs): esbuild CommonJS, minified, the AWS SDK bundled; loaded with require()",
    format: 'cjs',
    external: [],
    minify: true,
  },
} as const;

/** How the conventional peer was made and what it does, reported beside its figures. */
const CONVENTIONAL_BUILD = `bench/peer/conventional-handler.ts, built as ${PEER_NODEJS_DEFAULT} is (${PEER_BUILDS[PEER_NODEJS_DEFAULT].description}): payout-requested's job for the same "Payout Requested" event on the conventional stack, Powertools idempotency (makeIdempotent + DynamoDBPersistenceLayer on the idempotency table, the event's id as its key) around a TransactWriteCommand of the payout, its audit item and the day's cap counter (conditioned on the cap), a consistent GetCommand of its pause flag, one fetch to POST /settlement/instant/payout and a conditional UpdateCommand of the outcome (@aws-sdk/lib-dynamodb over the project's table, under PEER# keys), with Powertools Logger (the Lambda context added, as injectLambdaContext does) and Metrics (a cold-start metric, the outcome's count, published at the end); its input checked by hand, no schema library`;

/** What sets a verifying peer apart from the plain one it is built as. */
const VERIFYING_BUILD_NOTE =
  "the same bundle handed a settlement's id: it reads the provider's 10 newest settlements (GET /settlement), checks that one is listed as a successful merchant settlement, and pays out the amount listed";

/** What `bench/results/latest.json` reports as `coldStart`. */
export interface ColdStartReport {
  readonly runs: number;
  readonly loadAverage: { readonly atStart: number[]; readonly atEnd: number[] };
  readonly bareNodeMs: number;
  readonly peers: Record<
    string,
    TimedBuild & {
      readonly build: string;
      /**
       * The conventional peer only: the median ms of an invocation in a process already warm, the last half of
       * its warm-up's invocations (CONVENTIONAL_WARM_UP, one process).
       */
      readonly warmMs?: number;
    }
  >;
  readonly handlers: Record<
    string,
    TimedBuild & {
      /** What one timed invocation does. */
      readonly what: string;
      /** The function whose bundle ran, as deployed. */
      readonly function: string;
      readonly ratioToNodejsFunctionDefaultPeer: number;
      readonly msOverPeerBundledLikeOurs: number;
      readonly noSlowerThanNodejsFunctionDefaultPeer: boolean;
      readonly within15MsOfPeerBundledLikeOurs: boolean;
      /**
       * The same comparisons round by round (each round times every side once, one after another): the median
       * and quartiles of this handler's answer less, or divided by, the peer's in the same round. How far the
       * run's noise moves a row; the targets are judged on the medians above.
       */
      readonly perRound: PeerComparison['perRound'];
      /**
       * For a handler that checks its event with the provider first (the settlement): the same comparisons with
       * the verifying peers, which make that check too. For the reader's judgement only; no target is set on it.
       */
      readonly againstVerifyingPeers?: PeerComparison;
      /**
       * For a handler that creates and pays its payout in one invocation (api-payouts, payout-requested): its
       * answer against the conventional peer's, which does that job on the conventional stack (issue 47's goal:
       * no slower than it). Medians of the run and round by round.
       */
      readonly againstConventionalPeer?: ConventionalComparison;
    }
  >;
  readonly bundleBytes: Record<string, number>;
}

/** A handler's answer against a pair of peers (one per build): medians of the run, and round by round. */
interface PeerComparison {
  readonly ratioToNodejsFunctionDefaultPeer: number;
  readonly msOverPeerBundledLikeOurs: number;
  readonly perRound: {
    readonly msOverPeerBundledLikeOurs: Quartiles;
    readonly ratioToNodejsFunctionDefaultPeer: Quartiles;
  };
}

/** A handler's answer against the conventional peer's: medians of the run, and round by round. */
interface ConventionalComparison {
  readonly ratioToPeer: number;
  readonly msOverPeer: number;
  readonly noSlowerThanPeer: boolean;
  /** The medians' CPU (cpuMs) less the peer's: steadier than the wall clock on a loaded machine; no target. */
  readonly cpuMsOverPeer: number;
  readonly perRound: { readonly ratioToPeer: Quartiles; readonly msOverPeer: Quartiles };
}

interface Quartiles {
  readonly p25: number;
  readonly median: number;
  readonly p75: number;
}

interface TimedBuild {
  readonly bundleBytes: number;
  readonly answeredMs: number;
  readonly importMs: number;
  readonly firstEventMs: number;
  /** Median CPU of the process up to the answer (all threads): for comparing changes, no target is judged on it. */
  readonly cpuMs: number;
}

/**
 * Bundle size of every Lambda, and cold start (fresh `node`, load the bundle, handle one event that pays one
 * payout) of each money handler next to the Powertools-idempotency peer built two ways, the conventional peer
 * (the same job on the conventional stack), and a bare node.
 */
export async function benchColdStart(
  endpoint: string,
): Promise<BenchResult & { coldStart: ColdStartReport }> {
  const loadAtStart = loadavg().map((value) => fixed(value, 2));
  mkdirSync(outDir, { recursive: true });
  const invoker = join(outDir, 'invoke.mjs');
  writeFileSync(invoker, INVOKER);
  const warmInvoker = join(outDir, 'invoke-warm.mjs');
  writeFileSync(warmInvoker, WARM_INVOKER);
  const handlerNames = readdirSync(join(projectRoot, 'functions'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => name.replace(/\.ts$/, ''));
  const peerEntry = join(projectRoot, 'bench', 'peer', 'powertools-handler.ts');
  // What ships: the build the CDK construct runs, for every function and for the peer bundled like ours.
  const built = await buildHandlers(
    {
      ...Object.fromEntries(handlerNames.map((name) => [name, handlerEntry(name)])),
      [PEER_LIKE_OURS]: peerEntry,
    },
    outDir,
    // `BENCH_UNMINIFIED=1` with a CPU profile (BENCH_NODE_ARGS): esbuild's `// path` comments name each module.
    process.env.BENCH_UNMINIFIED ? { minify: false } : {},
  );
  const bundleFiles = new Map([...built].map(([name, bundle]) => [name, bundle.file]));
  const sizes = new Map([...built].map(([name, bundle]) => [name, bundle.bytes]));
  const nodejsDefault = await buildNodejsFunctionDefault(peerEntry);
  bundleFiles.set(PEER_NODEJS_DEFAULT, nodejsDefault.file);
  sizes.set(PEER_NODEJS_DEFAULT, nodejsDefault.bytes);
  const conventional = await buildNodejsFunctionDefault(
    join(projectRoot, 'bench', 'peer', 'conventional-handler.ts'),
    PEER_CONVENTIONAL,
  );
  bundleFiles.set(PEER_CONVENTIONAL, conventional.file);
  sizes.set(PEER_CONVENTIONAL, conventional.bytes);

  const rig = await startEngineRig(endpoint, { prefix: 'cold' });
  // A deployed stage without settlement.since (dev) records when instant settlement was first turned on at its
  // first trigger, and every cold start reads it back: recorded now, before the settlements the runs add.
  await new DynamoDbSettlementDecisionStore(rig.dynamoDb, rig.tableName).enabledSince(new Date());
  const submissions = await startSubmissionQueue();
  const idempotencyTable = `${rig.tableName}-idempotency`;
  await rig.dynamoDb.send(
    new CreateTableCommand({
      TableName: idempotencyTable,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    }),
  );
  try {
    const env = childEnv(rig, endpoint, idempotencyTable);
    await warmUpDatabase(rig, idempotencyTable, env, submissions);
    const conventionalWarmMs = await warmUpConventionalPeer(rig, warmInvoker, conventional.file, env);
    const timed = [
      'bare',
      ...MONEY_HANDLERS.map((handler) => handler.name),
      PEER_NODEJS_DEFAULT,
      PEER_LIKE_OURS,
      ...VERIFYING_PEERS.map((peer) => peer.name),
      PEER_CONVENTIONAL,
    ];
    const timings = new Map<string, Timing[]>(timed.map((name) => [name, []]));
    const record = (name: string, timing: Timing) => timings.get(name)?.push(timing);
    /** One timed cold start of each side, as a step of a round. */
    const sides: { name: string; time: (run: number) => Promise<Timing> }[] = [
      ...MONEY_HANDLERS.map((handler) => ({
        name: handler.name,
        time: (run: number) =>
          paysOnce(rig, submissions, handler, run, handler.name, (event) =>
            invoke(
              invoker,
              bundleFiles,
              handler.name,
              event,
              handler.enqueues === undefined ? env : { ...env, ...submissions.environment },
            ),
          ),
      })),
      {
        name: PEER_NODEJS_DEFAULT,
        time: (run: number) =>
          pays(rig, 'peer', 1, () =>
            invoke(invoker, bundleFiles, PEER_NODEJS_DEFAULT, peerEvent(run, 'n'), env),
          ),
      },
      {
        name: PEER_LIKE_OURS,
        time: (run: number) =>
          pays(rig, 'peer', 1, () => invoke(invoker, bundleFiles, PEER_LIKE_OURS, peerEvent(run, 'o'), env)),
      },
      ...VERIFYING_PEERS.map(({ name, bundle, variant }) => ({
        name,
        time: async (run: number) => {
          const event = { ...peerEvent(run, variant), settlementId: await freshSettlement(rig) };
          // The listing's read, then the payout.
          return pays(rig, name, 2, () => invoke(invoker, bundleFiles, bundle, event, env));
        },
      })),
      {
        name: PEER_CONVENTIONAL,
        time: (run: number) =>
          pays(rig, PEER_CONVENTIONAL, 1, async () =>
            succeeded(
              PEER_CONVENTIONAL,
              await invoke(
                invoker,
                bundleFiles,
                PEER_CONVENTIONAL,
                payoutRequestedEvent(`peer-c-${process.pid}-${run}`),
                env,
              ),
            ),
          ),
      },
    ];
    // Interleaved, so background load on the shared cores hits every side alike, and each round starts one side
    // later than the one before, so no side always follows the same one (a heavy bundle, a cold file cache).
    for (let run = -DISCARDED_RUNS; run < RUNS; run++) {
      if (run === 0) for (const list of timings.values()) list.length = 0;
      record('bare', await spawnTimed(['-e', BARE], env));
      const first = ((run % sides.length) + sides.length) % sides.length;
      for (const side of [...sides.slice(first), ...sides.slice(0, first)])
        record(side.name, await side.time(run));
    }
    const medianOf = (name: string, pick: (timing: Timing) => number) =>
      median((timings.get(name) ?? []).map(pick));
    const bundleOf = (name: string) => VERIFYING_PEERS.find((peer) => peer.name === name)?.bundle ?? name;
    const timedBuild = (name: string): TimedBuild => ({
      bundleBytes: sizes.get(bundleOf(name)) ?? 0,
      answeredMs: fixed(
        medianOf(name, (t) => t.answeredMs),
        1,
      ),
      importMs: fixed(
        medianOf(name, (t) => t.importMs),
        1,
      ),
      firstEventMs: fixed(
        medianOf(name, (t) => t.handleMs),
        1,
      ),
      cpuMs: fixed(
        medianOf(name, (t) => t.cpuMs),
        1,
      ),
    });
    const bareMs = medianOf('bare', (t) => t.answeredMs);
    /** `combine` of this side's answer and the peer's, round by round: every side is timed once a round. */
    const perRound = (
      name: string,
      peer: string,
      combine: (own: number, peer: number) => number,
      digits: number,
    ): Quartiles => {
      const peerTimings = timings.get(peer) ?? [];
      const values = (timings.get(name) ?? []).flatMap((timing, round) => {
        const other = peerTimings[round];
        return other ? [combine(timing.answeredMs, other.answeredMs)] : [];
      });
      return {
        p25: fixed(quantile(values, 0.25), digits),
        median: fixed(quantile(values, 0.5), digits),
        p75: fixed(quantile(values, 0.75), digits),
      };
    };
    const peerDefault = timedBuild(PEER_NODEJS_DEFAULT);
    const peerOurs = timedBuild(PEER_LIKE_OURS);
    const peerConventional = timedBuild(PEER_CONVENTIONAL);
    const [verifyingDefault, verifyingOurs] = VERIFYING_PEERS;
    /** A side's answer against a pair of peers: the NodejsFunction-default build and the one like ours. */
    const compare = (
      own: TimedBuild,
      name: string,
      peers: { readonly nodejsDefault: string; readonly likeOurs: string },
    ): PeerComparison => ({
      ratioToNodejsFunctionDefaultPeer: fixed(own.answeredMs / timedBuild(peers.nodejsDefault).answeredMs, 3),
      msOverPeerBundledLikeOurs: fixed(own.answeredMs - timedBuild(peers.likeOurs).answeredMs, 1),
      perRound: {
        msOverPeerBundledLikeOurs: perRound(name, peers.likeOurs, (a, b) => a - b, 1),
        ratioToNodejsFunctionDefaultPeer: perRound(name, peers.nodejsDefault, (a, b) => a / b, 3),
      },
    });
    const coldStart: ColdStartReport = {
      runs: RUNS,
      loadAverage: { atStart: loadAtStart, atEnd: loadavg().map((value) => fixed(value, 2)) },
      bareNodeMs: fixed(bareMs, 1),
      peers: {
        [PEER_NODEJS_DEFAULT]: { ...peerDefault, build: PEER_BUILDS[PEER_NODEJS_DEFAULT].description },
        [PEER_LIKE_OURS]: { ...peerOurs, build: PEER_BUILDS[PEER_LIKE_OURS].description },
        ...Object.fromEntries(
          VERIFYING_PEERS.map(({ name, bundle }) => [
            name,
            { ...timedBuild(name), build: `${PEER_BUILDS[bundle].description}; ${VERIFYING_BUILD_NOTE}` },
          ]),
        ),
        [PEER_CONVENTIONAL]: {
          ...peerConventional,
          build: CONVENTIONAL_BUILD,
          warmMs: fixed(conventionalWarmMs, 1),
        },
      },
      handlers: Object.fromEntries(
        MONEY_HANDLERS.map(({ name, what, verifiesWithProvider, doesTheConventionalPeersJob }) => {
          const own = timedBuild(name);
          const { perRound: rounds, ...medians } = compare(own, name, {
            nodejsDefault: PEER_NODEJS_DEFAULT,
            likeOurs: PEER_LIKE_OURS,
          });
          return [
            name,
            {
              what,
              function: name,
              ...own,
              ...medians,
              noSlowerThanNodejsFunctionDefaultPeer: own.answeredMs <= peerDefault.answeredMs,
              within15MsOfPeerBundledLikeOurs:
                own.answeredMs - peerOurs.answeredMs <= WITHIN_MS_OF_PEER_LIKE_OURS,
              perRound: rounds,
              ...(verifiesWithProvider && {
                againstVerifyingPeers: compare(own, name, {
                  nodejsDefault: verifyingDefault.name,
                  likeOurs: verifyingOurs.name,
                }),
              }),
              ...(doesTheConventionalPeersJob && {
                againstConventionalPeer: {
                  ratioToPeer: fixed(own.answeredMs / peerConventional.answeredMs, 3),
                  msOverPeer: fixed(own.answeredMs - peerConventional.answeredMs, 1),
                  noSlowerThanPeer: own.answeredMs <= peerConventional.answeredMs,
                  cpuMsOverPeer: fixed(own.cpuMs - peerConventional.cpuMs, 1),
                  perRound: {
                    ratioToPeer: perRound(name, PEER_CONVENTIONAL, (a, b) => a / b, 3),
                    msOverPeer: perRound(name, PEER_CONVENTIONAL, (a, b) => a - b, 1),
                  },
                },
              }),
            },
          ];
        }),
      ),
      bundleBytes: Object.fromEntries(sizes),
    };
    /** The rows that check their event with the provider, against the verifying peers (median and quartiles). */
    const verifyingAgainst = () =>
      Object.entries(coldStart.handlers)
        .flatMap(([name, { againstVerifyingPeers: against }]) => {
          if (!against) return [];
          const { ratioToNodejsFunctionDefaultPeer: ratio, msOverPeerBundledLikeOurs: ms } = against.perRound;
          return [
            `${name} ÷ ${fixed(against.ratioToNodejsFunctionDefaultPeer, 3)} (rounds ${fixed(ratio.p25, 2)} to ${fixed(ratio.p75, 2)}), ${fixed(against.msOverPeerBundledLikeOurs, 1)} ms over (rounds ${fixed(ms.p25, 0)} to ${fixed(ms.p75, 0)})`,
          ];
        })
        .join('; ');
    /** The rows that do the conventional peer's job, against it (median and quartiles). */
    const conventionalAgainst = () =>
      Object.entries(coldStart.handlers)
        .flatMap(([name, { againstConventionalPeer: against }]) => {
          if (!against) return [];
          const { ratioToPeer: ratio, msOverPeer: ms } = against.perRound;
          return [
            `${name} ÷ ${fixed(against.ratioToPeer, 3)} (rounds ${fixed(ratio.p25, 2)} to ${fixed(ratio.p75, 2)}), ${fixed(against.msOverPeer, 1)} ms over (rounds ${fixed(ms.p25, 0)} to ${fixed(ms.p75, 0)}), ${fixed(against.cpuMsOverPeer, 1)} ms of CPU over`,
          ];
        })
        .join('; ');
    /** A money handler's per-round comparisons, as quartile ranges; empty for the peers. */
    const roundByRound = (name: string): string => {
      const rounds = coldStart.handlers[name]?.perRound;
      if (!rounds) return '';
      const { ratioToNodejsFunctionDefaultPeer: ratio, msOverPeerBundledLikeOurs: ms } = rounds;
      return `${fixed(ratio.p25, 2)} to ${fixed(ratio.p75, 2)}; ${fixed(ms.p25, 0)} to ${fixed(ms.p75, 0)}`;
    };
    const row = (name: string, what: string): Row => {
      const own = timedBuild(name);
      return {
        handler: name,
        'handles one event by': what,
        'bundle KB': fixed(own.bundleBytes / 1024, 0),
        'answered ms (median)': fixed(own.answeredMs, 0),
        'over bare node ms': fixed(own.answeredMs - bareMs, 0),
        'import ms': fixed(own.importMs, 0),
        'first event ms': fixed(own.firstEventMs, 0),
        'CPU ms': fixed(own.cpuMs, 0),
        '÷ NodejsFunction-default peer': fixed(own.answeredMs / peerDefault.answeredMs, 2),
        'ms over peer bundled like ours': fixed(own.answeredMs - peerOurs.answeredMs, 0),
        'round by round: ÷ default peer, ms over like ours (p25 to p75)': roundByRound(name),
      };
    };
    const rows: Row[] = [
      {
        handler: 'node -e (bare)',
        'handles one event by': 'nothing: reaches its first line of code',
        'bundle KB': '',
        'answered ms (median)': fixed(bareMs, 0),
        'over bare node ms': 0,
        'import ms': '',
        'first event ms': '',
        'CPU ms': fixed(
          medianOf('bare', (t) => t.cpuMs),
          0,
        ),
        '÷ NodejsFunction-default peer': '',
        'ms over peer bundled like ours': '',
        'round by round: ÷ default peer, ms over like ours (p25 to p75)': '',
      },
      row(PEER_NODEJS_DEFAULT, 'paying 1 payout (the peer, NodejsFunction defaults: CJS, SDK external)'),
      row(PEER_LIKE_OURS, "paying 1 payout (the peer, the project's own build)"),
      row(
        verifyingDefault.name,
        'checking 1 settlement in the listing, then paying it (NodejsFunction defaults)',
      ),
      row(
        verifyingOurs.name,
        "checking 1 settlement in the listing, then paying it (the project's own build)",
      ),
      row(
        PEER_CONVENTIONAL,
        '"Payout Requested": creating and paying 1 payout (the conventional peer: Powertools idempotency, Logger, Metrics, lib-dynamodb; NodejsFunction defaults)',
      ),
      ...MONEY_HANDLERS.map((handler) => row(handler.name, handler.what)),
      ...handlerNames
        .filter((name) => !MONEY_HANDLERS.some((handler) => handler.name === name))
        .map((name) => ({
          handler: name,
          'handles one event by': '(size only)',
          'bundle KB': fixed((sizes.get(name) ?? 0) / 1024, 0),
          'answered ms (median)': '',
          'over bare node ms': '',
          'import ms': '',
          'first event ms': '',
          'CPU ms': '',
          '÷ NodejsFunction-default peer': '',
          'ms over peer bundled like ours': '',
          'round by round: ÷ default peer, ms over like ours (p25 to p75)': '',
        })),
    ];
    return {
      name: 'cold-start',
      title: `Cold start: bundle size and fresh-process time (median of ${RUNS}; load average ${loadAtStart.join(', ')} at start, ${coldStart.loadAverage.atEnd.join(', ')} at end)`,
      rows,
      coldStart,
      notes: [
        "Bundles: the project's own build (infra/bundling/build-handler.ts), which the CDK construct runs at synth and the bundle test checks: esbuild CommonJS (index.cjs, which Lambda loads with require()), platform node, target node22, minified, the AWS SDK bundled from its ESM build with its default credential chain cut to the environment link, and the plugin that leaves out the parts of undici and the SDK no function reaches (infra/bundling/shipped-dependencies.ts). bundle KB is the size of index.cjs, all the JavaScript a function loads; a function that calls the provider also reads undici's HTTP parser (53 KB of wasm) from llhttp_simd.wasm beside it, on its first provider connection.",
        `The peer (bench/peer/powertools-handler.ts): Powertools idempotency (makeIdempotent + DynamoDBPersistenceLayer, own table with pk \`id\`) around one fetch to POST /settlement/instant/payout; not safe for payouts (it releases the lock when the call fails, so a timeout resends). Built twice in this run: ${PEER_NODEJS_DEFAULT} = ${PEER_BUILDS[PEER_NODEJS_DEFAULT].description}; ${PEER_LIKE_OURS} = ${PEER_BUILDS[PEER_LIKE_OURS].description}.`,
        `Targets (issue 18): each money handler's answered ms no more than the ${PEER_NODEJS_DEFAULT} peer's (÷ ≤ 1.00) and within ${WITHIN_MS_OF_PEER_LIKE_OURS} ms of the ${PEER_LIKE_OURS} peer's, medians of the same run.`,
        `The verifying peers (${verifyingDefault.name}, ${verifyingOurs.name}): ${VERIFYING_BUILD_NOTE}, as settlement-available never pays an event's word. For comparison only, no target is judged on them: ${verifyingAgainst()}.`,
        `The conventional peer (${PEER_CONVENTIONAL}, issue 47): ${CONVENTIONAL_BUILD}. Against it, the two rows that create and pay in one invocation (issue 47's goal: no slower than the conventional stack doing the same job; coldStart.handlers.*.againstConventionalPeer): ${conventionalAgainst()}. Warm, in one process after its first invocation, it handles an event in ${fixed(conventionalWarmMs, 1)} ms (median of the last ${Math.ceil((CONVENTIONAL_WARM_UP - 1) / 2)} of its ${CONVENTIONAL_WARM_UP} warm-up invocations, coldStart.peers.${PEER_CONVENTIONAL}.warmMs).`,
        "round by round: every round times each side once, one after another; the quartiles of the handler's answer divided by the NodejsFunction-default peer's and less the peer bundled like ours' in the same round show how far the run's noise moves a row (coldStart.handlers.*.perRound).",
        `Before timing, DynamoDB Local is warmed with ${DATABASE_WARM_UP} rounds of each side's own requests (each money handler's own code, run in the bench's process on a runtime built from its function's environment, with the events of its timed runs; the peer's Powertools idempotency on its table; the conventional peer's bundle handed ${CONVENTIONAL_WARM_UP} events in one process of its own), and ${DISCARDED_RUNS} cold runs of each are thrown away: the database in AWS is never cold, only the function is measured cold.`,
        "answered ms: in a fresh `node`, from the process's own start (performance.timeOrigin) to the handler's answer, after loading the bundle and handling one event against DynamoDB Local and the sandbox (latency 0) on loopback: a Lambda cold start, init plus the first invoke. Each timed invocation is checked to have paid exactly one payout (the sandbox's request count), or, for a row that hands its payout over, to have queued exactly one message and sent none. The handlers run with the environment the dev stack gives them (infra/config/function-environment.ts: its limits, the provider rate limit submit-payouts paces its sends by, the settlement policy), the settlements' allowed hours apart, and in local mode (provider token from the environment: there is no Secrets Manager here); the bare row is node reaching its first line of code; runs are interleaved, each round starting one side later than the one before.",
        'Each money handler that pays does more per event than the peer: a cap-checked claim transaction (for api and payout-requested, the idempotent create already claimed, in the same transaction), a consistent read of the pause after it and the audited outcome (one conditional PutItem of the payout carrying its audit event). The two that hand over pay nothing themselves, as deployed (the workers pay: the submit-payouts row): the sweeper queries its work queue; settlement-available reads the cutoff recorded when instant settlement was turned on and the settlement from the provider (the 10 newest, over the Node HTTP client; the listing is asked for once the read of the cutoff is on its way; no read of its decision, which a repeated trigger meets in the writes), creates the payout pending with its decision in the same transaction and hands it to the queue; it runs with the settlement policy of the dev stage (cdk.json: no settlement.since, a minimum, two categories) but all-day hours, so that the row does not depend on the time of day.',
      ],
    };
  } finally {
    await rig.dynamoDb.send(new DeleteTableCommand({ TableName: idempotencyTable })).catch(() => undefined);
    await submissions.close();
    await rig.close();
  }
}

/**
 * The submission queue the deployed sweeper hands due payouts to: the local SQS stand-in (lib/local), served on
 * 127.0.0.1 as `npm start` serves it, with no consumer (the submit-payouts row times the workers' side).
 */
/** The local SQS stand-in the sweeper hands payouts to, with the environment that points a function at it. */
type SubmissionQueueStandIn = Awaited<ReturnType<typeof startSubmissionQueue>>;

async function startSubmissionQueue() {
  const queue = new LocalSqsQueue({
    name: 'payout-submissions.fifo',
    fifo: true,
    visibilityTimeoutMs: 60_000,
    maxReceiveCount: 5,
    batchSize: 10,
    // Nothing is received: what the sweeper hands over is paid in the bench's own process (`settle`).
    maxConcurrency: 0,
    functionTimeoutMs: 60_000,
    consumer: async () => undefined,
    logger: silentLogger,
  });
  const endpoint = await serveLocalSqs(queue, { port: 0, logger: silentLogger });
  return {
    queue,
    environment: { SUBMIT_QUEUE_URL: endpoint.queueUrl, SQS_ENDPOINT: endpoint.url },
    close: () => endpoint.close(),
  };
}

/** An SQS event of one submission message, as the event source mapping delivers it. */
function sqsEvent(run: number, request: { payoutId: string; version: number }) {
  return {
    Records: [
      {
        messageId: `cold-${process.pid}-${run}`,
        receiptHandle: 'bench',
        body: JSON.stringify(request),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(Date.now()),
          SenderId: 'bench',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
          MessageGroupId: request.payoutId,
          MessageDeduplicationId: `${request.payoutId}:${request.version}`,
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:payout-submissions.fifo',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

/** POST /payouts as API Gateway (HTTP API v2) delivers it; local mode takes the operator from a header. */
function apiCreatePayout(idempotencyKey: string) {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/payouts',
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
      'x-ops-principal': 'bench-operator',
    },
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'bench.local',
      domainPrefix: 'bench',
      http: {
        method: 'POST',
        path: '/payouts',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'bench',
      },
      requestId: idempotencyKey,
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: JSON.stringify(bankTransfer()),
    isBase64Encoded: false,
  };
}

/** A peer as NodejsFunction builds it by default for nodejs22.x (aws-cdk-lib 2.276, local esbuild). */
async function buildNodejsFunctionDefault(
  entry: string,
  name: string = PEER_NODEJS_DEFAULT,
): Promise<{ file: string; bytes: number }> {
  // .cjs: Node loads it as CommonJS although the project's package.json says "type": "module"; Lambda has no
  // package.json beside NodejsFunction's index.js, so there it is CommonJS too.
  const file = join(outDir, name, 'index.cjs');
  const build = PEER_BUILDS[PEER_NODEJS_DEFAULT];
  await build_({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: build.format,
    minify: build.minify,
    sourcemap: false,
    external: [...build.external],
    logLevel: 'error',
  });
  return { file, bytes: statSync(file).size };
}

/**
 * Runs each side's own DynamoDB requests until DynamoDB Local's JVM has compiled them (see DATABASE_WARM_UP):
 * every money handler's own code (`ownCode`), in this process on a runtime built from its function's environment,
 * with the events its timed runs get; and the peer's Powertools idempotency on its table. Each warm-up invocation
 * is checked to make its row's provider calls, so a path that stopped paying cannot go unwarmed.
 */
async function warmUpDatabase(
  rig: EngineRig,
  idempotencyTable: string,
  env: NodeJS.ProcessEnv,
  submissions: SubmissionQueueStandIn,
): Promise<void> {
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'idempotencyKey' });
  // Outside a handler Powertools cannot tell the time left and warns on every call; give it what Lambda would.
  config.registerLambdaContext(benchContext('warm-up'));
  const peerOperations = makeIdempotent(async (_event: { idempotencyKey: string }) => ({ paid: true }), {
    persistenceStore: new DynamoDBPersistenceLayer({
      tableName: idempotencyTable,
      awsSdkV3Client: rig.dynamoDb,
    }),
    config,
  });
  const runtimes: WarmUpRuntimes = {
    withQueue: createRuntime({ ...env, ...submissions.environment }, { logger: silentLogger }),
    withoutQueue: createRuntime(env, { logger: silentLogger }),
  };
  try {
    for (let round = 0; round < DATABASE_WARM_UP; round++) {
      // Below the discarded runs' numbers, so no warm-up event repeats a timed run's idempotency key.
      const run = -DISCARDED_RUNS - 1 - round;
      for (const handler of MONEY_HANDLERS) {
        await paysOnce(rig, submissions, handler, run, `${handler.name} (warm-up)`, (event) =>
          handler.ownCode(runtimes, event, remainingMsOf(handler.name)),
        );
      }
      await peerOperations({ idempotencyKey: `warm-${process.pid}-${round}` });
    }
  } finally {
    await Promise.all([runtimes.withQueue.close(), runtimes.withoutQueue.close()]);
  }
}

/**
 * The conventional peer's own requests against DynamoDB Local (see DATABASE_WARM_UP): its bundle, in one process
 * of its own, handed CONVENTIONAL_WARM_UP events one after another, each checked to succeed and the whole checked
 * to have paid that many payouts. Answers the median ms of the last half of them: the peer warm.
 */
async function warmUpConventionalPeer(
  rig: EngineRig,
  warmInvoker: string,
  bundle: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const event = payoutRequestedEvent(`peer-c-warm-${process.pid}`);
  const { result } = await pays(rig, `${PEER_CONVENTIONAL} (warm-up)`, CONVENTIONAL_WARM_UP, () =>
    spawnTimed([warmInvoker, bundle, JSON.stringify(event), String(CONVENTIONAL_WARM_UP)], env),
  );
  const { handleMs, unsucceeded } = result as { handleMs: number[]; unsucceeded: unknown[] };
  if (unsucceeded.length > 0 || handleMs.length !== CONVENTIONAL_WARM_UP)
    throw new Error(`${PEER_CONVENTIONAL} (warm-up) did not succeed: ${JSON.stringify(unsucceeded[0])}`);
  return median(handleMs.slice(-Math.ceil((CONVENTIONAL_WARM_UP - 1) / 2)));
}

/** A timed invocation of the conventional peer, checked to have paid: the provider's answer recorded as succeeded. */
function succeeded(what: string, timing: Timing): Timing {
  const { result } = timing;
  if (!(result && typeof result === 'object' && 'status' in result && result.status === 'succeeded'))
    throw new Error(`${what} did not succeed: ${JSON.stringify(result)}`);
  return timing;
}

/** A Lambda context like the cold children's, for Powertools outside a handler. */
function benchContext(requestId: string): Context {
  return {
    ...CONTEXT_FIELDS,
    awsRequestId: requestId,
    getRemainingTimeInMillis: () => REMAINING_MS,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * What the dev stack gives the functions (infra/config/function-environment.ts), but for the settlements' allowed
 * hours: outside them a settlement event is deferred, not paid, and its row would time the clock.
 */
const { SETTLEMENT_ALLOWED_HOURS: _allowedHours, ...DEPLOYED_ENV } = functionEnvironment(
  'dev',
  stageConfigOf('dev'),
);

function childEnv(rig: EngineRig, endpoint: string, idempotencyTable: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...DEPLOYED_ENV,
    TABLE_NAME: rig.tableName,
    IDEMPOTENCY_TABLE_NAME: idempotencyTable,
    DYNAMODB_ENDPOINT: endpoint,
    PROVIDER_BASE_URL: rig.sandbox.url,
    PROVIDER_TOKEN: rig.sandbox.token,
    PROVIDER_PIN: rig.sandbox.pin,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    ...(TRACE_DIR && { BENCH_TRACE_DIR: TRACE_DIR }),
  };
}

function peerEvent(run: number, variant: string) {
  return {
    idempotencyKey: `peer-${variant}-${process.pid}-${run}`,
    amount: 150,
    bankCode: '058',
    accountNumber: '0123456789',
    accountName: 'Ada Supplies',
    narration: `bench peer payout ${run}`,
  };
}

async function invoke(
  invoker: string,
  files: ReadonlyMap<string, string>,
  name: string,
  event: unknown,
  env: NodeJS.ProcessEnv,
): Promise<Timing> {
  const file = files.get(name);
  if (!file) throw new Error(`no bundle for ${name}`);
  return spawnTimed([invoker, file, JSON.stringify(event), String(remainingMsOf(name))], env);
}

/** The time a function's context reports left as an invocation begins: its configured timeout. */
function remainingMsOf(name: string): number {
  const timeout = name in HANDLERS ? HANDLERS[name as HandlerName].timeout : undefined;
  return timeout?.toMilliseconds() ?? REMAINING_MS;
}

function spawnTimed(args: string[], env: NodeJS.ProcessEnv): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`node ${args[1] ?? args[0]} exited with ${code}: ${stderr}`));
      const line = stdout.split('\n').find((text) => text.startsWith(RESULT_PREFIX));
      if (!line) return reject(new Error(`node ${args[1] ?? args[0]} printed no result: ${stderr}`));
      const parsed = JSON.parse(line.slice(RESULT_PREFIX.length)) as Omit<Timing, 'wallMs'>;
      resolve({ wallMs, ...parsed });
    });
  });
}

/**
 * One invocation of a money handler's row, timed cold or the warm-up's in this process: readies its event, runs
 * it, checks that it made its row's provider calls and queued its row's messages, and settles what it handed over.
 */
async function paysOnce<T>(
  rig: EngineRig,
  submissions: SubmissionQueueStandIn,
  handler: MoneyHandler,
  run: number,
  what: string,
  invokeWith: (event: unknown) => Promise<T>,
): Promise<T> {
  const event = await handler.prepare(rig, run);
  const queuedBefore = submissions.queue.stats().visible;
  const answer = await pays(rig, what, handler.providerCalls, () => invokeWith(event));
  const queued = submissions.queue.stats().visible - queuedBefore;
  if (queued !== (handler.enqueues ?? 0))
    throw new Error(`${what} queued ${queued} messages instead of ${handler.enqueues ?? 0}`);
  await handler.settle?.(rig);
  return answer;
}

/**
 * Runs one invocation and checks, by the sandbox's request count, that it made the provider calls of one payout.
 */
async function pays<T>(rig: EngineRig, what: string, expected: number, run: () => Promise<T>): Promise<T> {
  const before = await rig.providerCalls();
  const answer = await run();
  const calls = (await rig.providerCalls()) - before;
  if (calls !== expected) {
    const shown = answer && typeof answer === 'object' && 'result' in answer ? answer.result : answer;
    throw new Error(`${what} made ${calls} provider calls instead of ${expected}: ${JSON.stringify(shown)}`);
  }
  return answer;
}
