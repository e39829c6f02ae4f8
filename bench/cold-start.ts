import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../infra/constructs/payout-function.js';
import {
  type BenchResult,
  bankTransfer,
  createCommand,
  type EngineRig,
  fixed,
  median,
  projectRoot,
  quick,
  type Row,
  startEngineRig,
} from './support.js';

/** Timed cold runs of each handler; `BENCH_COLD_RUNS` overrides, for a steadier median while comparing changes. */
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? (quick ? 3 : 9));
/** Cold runs of every handler made and thrown away first: the OS file cache, the sandbox and the sockets settle. */
const DISCARDED_RUNS = 2;
/**
 * Requests each side's code makes against DynamoDB Local before anything is timed. DynamoDB Local is a JVM:
 * until its JIT has compiled a request path, that path runs several times slower (a transaction took ~25 ms
 * in the first cold runs and ~4 ms once warm), and transactions, which the sweep uses and the peer does not,
 * warm up last. DynamoDB in AWS is never cold, so neither is the database here; only the function is.
 */
const DATABASE_WARM_UP = quick ? 40 : 150;
/** Git-ignored: bundles must sit inside the project so the external `@aws-sdk/*` resolve from node_modules. */
const outDir = join(projectRoot, '.cache', 'bench-bundles');
/** The peer bundled the common way, with the AWS SDK external. */
const PEER_COMMON = 'powertools-handler-sdk-external';
const RESULT_PREFIX = 'BENCH_RESULT ';
/** Extra `node` flags for every child, e.g. `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` to profile. */
const NODE_ARGS = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const CHILD_TIMEOUT_MS = 60_000;

/**
 * `BENCH_TRACE_DIR=dir`: each child also writes `dir/<pid>-<bundle>.txt`, the timeline of its requests (DynamoDB
 * over node:http, the provider over undici) in ms from the process's start; `BENCH_NODE_ARGS` can add a CPU
 * profile to line it up with. Off by default: subscribing to the channels costs time of its own.
 */
const TRACE_DIR = process.env.BENCH_TRACE_DIR;
const TRACER = `
const dc = await import('node:diagnostics_channel');
const lines = [];
const mark = (what) => lines.push(performance.now().toFixed(1) + ' ' + what);
dc.subscribe('http.client.request.start', ({ request }) => {
  const what = request.getHeader('x-amz-target') ?? request.path;
  mark('start ' + what);
  request.once('response', (response) => response.once('end', () => mark('end ' + what)));
});
dc.subscribe('undici:request:create', ({ request }) => mark('start ' + request.path));
dc.subscribe('undici:client:connected', () => mark('connected (undici)'));
dc.subscribe('undici:request:trailers', ({ request }) => mark('end ' + request.path));
const { writeFileSync } = await import('node:fs');
process.on('exit', () => writeFileSync(process.env.BENCH_TRACE_DIR + '/' + process.pid + '-' + process.argv[2].split('/').pop() + '.txt', lines.join('\\n') + '\\n'));
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
/** The time left that every context reports: an invocation just begun. */
const REMAINING_MS = 60_000;

/** Imports a bundle, hands it one event, prints timings; what a Lambda init + first invoke does. */
const INVOKER = `${TRACE_DIR ? TRACER : ''}
const started = performance.now();
const mod = await import(process.argv[2]);
const imported = performance.now();
globalThis.benchTraceMark?.('imported');
const context = {
  ...${JSON.stringify(CONTEXT_FIELDS)},
  awsRequestId: 'bench-' + process.pid,
  getRemainingTimeInMillis: () => ${REMAINING_MS},
};
const result = await mod.handler(JSON.parse(process.argv[3]), context);
const handled = performance.now();
process.stdout.write('\\n${RESULT_PREFIX}' + JSON.stringify({ answeredMs: handled, importMs: imported - started, handleMs: handled - imported, result }) + '\\n');
process.exit(0);
`;

/** A bare start: how long node takes to reach the first line of user code. */
const BARE = `process.stdout.write('\\n${RESULT_PREFIX}' + JSON.stringify({ answeredMs: performance.now(), importMs: 0, handleMs: 0 }) + '\\n');`;

interface Timing {
  /** From spawn to the process's exit. */
  wallMs: number;
  /** From the process's own start (performance.timeOrigin) to the handler's answer: what Lambda waits for. */
  answeredMs: number;
  importMs: number;
  handleMs: number;
  result: unknown;
}

/**
 * Bundle size of every Lambda, and cold start (fresh `node`, import the bundle, handle one event) of the
 * sweeper paying one payout next to the Powertools-idempotency peer paying one, and a bare `node -e 0`.
 */
export async function benchColdStart(endpoint: string): Promise<BenchResult> {
  mkdirSync(outDir, { recursive: true });
  const invoker = join(outDir, 'invoke.mjs');
  writeFileSync(invoker, INVOKER);
  const entries = [
    ...readdirSync(join(projectRoot, 'functions'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(projectRoot, 'functions', name)),
    join(projectRoot, 'bench', 'peer', 'powertools-handler.ts'),
  ];
  const sizes = new Map<string, number>();
  for (const entry of entries)
    sizes.set(basename(entry, '.ts'), await bundle(entry, BUNDLE_OPTIONS.external));
  const peerEntry = join(projectRoot, 'bench', 'peer', 'powertools-handler.ts');
  // The common way: the AWS SDK left to the Lambda runtime (the CDK default for Node 18 and later).
  sizes.set(PEER_COMMON, await bundle(peerEntry, ['@aws-sdk/*'], PEER_COMMON));

  const rig = await startEngineRig(endpoint, { prefix: 'cold' });
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
    await warmUpDatabase(rig, idempotencyTable);
    const env = childEnv(rig, endpoint, idempotencyTable);
    const bare: Timing[] = [];
    const sweep: Timing[] = [];
    const peer: Timing[] = [];
    const peerBundled: Timing[] = [];
    // Interleaved, so background load on the shared cores hits all three alike.
    for (let run = -DISCARDED_RUNS; run < RUNS; run++) {
      if (run === 0) for (const timings of [bare, sweep, peer, peerBundled]) timings.length = 0;
      bare.push(await spawnTimed(['-e', BARE], env));
      await rig.engine.create(createCommand(bankTransfer(), `cold-${process.pid}-${run}`));
      sweep.push(
        await paysOne(rig, 'sweep', () =>
          invoke(invoker, 'sweep-due-payouts', { 'detail-type': 'Scheduled Event' }, env),
        ),
      );
      peer.push(await paysOne(rig, 'peer', () => invoke(invoker, PEER_COMMON, peerEvent(run, 'c'), env)));
      peerBundled.push(
        await paysOne(rig, 'peer', () => invoke(invoker, 'powertools-handler', peerEvent(run, 'b'), env)),
      );
    }
    const bareMs = median(bare.map((t) => t.answeredMs));
    const row = (handler: string, what: string, timings: Timing[]): Row => ({
      handler,
      'handles one event by': what,
      'bundle KB': fixed((sizes.get(handler) ?? 0) / 1024, 0),
      'answered ms (median)': fixed(median(timings.map((t) => t.answeredMs)), 0),
      'over bare node ms': fixed(median(timings.map((t) => t.answeredMs)) - bareMs, 0),
      'import ms': fixed(median(timings.map((t) => t.importMs)), 0),
      'first event ms': fixed(median(timings.map((t) => t.handleMs)), 0),
      'wall to exit ms': fixed(median(timings.map((t) => t.wallMs)), 0),
    });
    const rows: Row[] = [
      {
        handler: 'node -e (bare)',
        'handles one event by': 'nothing: reaches its first line of code',
        'bundle KB': '',
        'answered ms (median)': fixed(bareMs, 0),
        'over bare node ms': 0,
        'import ms': '',
        'first event ms': '',
        'wall to exit ms': fixed(median(bare.map((t) => t.wallMs)), 0),
      },
      row('sweep-due-payouts', 'sweeping and paying 1 due payout', sweep),
      row(PEER_COMMON, 'paying 1 payout (the peer, SDK from the runtime)', peer),
      row('powertools-handler', 'paying 1 payout (the peer, bundled like ours)', peerBundled),
      ...[...sizes.entries()]
        .filter(([name]) => !['sweep-due-payouts', 'powertools-handler', PEER_COMMON].includes(name))
        .map(([name, bytes]) => ({
          handler: name,
          'handles one event by': '(size only)',
          'bundle KB': fixed(bytes / 1024, 0),
          'answered ms (median)': '',
          'over bare node ms': '',
          'import ms': '',
          'first event ms': '',
          'wall to exit ms': '',
        })),
    ];
    return {
      name: 'cold-start',
      title: `Cold start: bundle size and fresh-process time (median of ${RUNS})`,
      rows,
      notes: [
        "Bundles: built with the CDK construct's own options (infra/constructs/payout-function.ts): esbuild ESM, platform node, target node22, minified, the AWS SDK bundled from its ESM build with its default credential chain cut to the environment link (where Lambda puts the role's credentials), with the createRequire banner.",
        `Before timing, DynamoDB Local is warmed with ${DATABASE_WARM_UP} rounds of each side's own requests (the engine creating and sweeping a payout; Powertools idempotency on its table), and ${DISCARDED_RUNS} cold runs of each handler are thrown away: the database in AWS is never cold, only the function is measured cold.`,
        "answered ms: in a fresh `node`, from the process's own start (performance.timeOrigin) to the handler's answer, after importing the bundle from an .mjs and handling one event against DynamoDB Local and the sandbox (latency 0) on loopback. That is a Lambda cold start: init plus the first invoke; Lambda does not end the process after it. The bare row is node reaching its first line of code; runs are interleaved.",
        "wall to exit ms: from spawn to the exit the parent sees, for reference. The tail after the answer (~70-110 ms here, process teardown and the parent's event loop, which also runs the sandbox) is not part of a cold start.",
        "The peer: Powertools idempotency (makeIdempotent + DynamoDBPersistenceLayer, own table with pk `id`) around one fetch to POST /settlement/instant/payout: the common way, and not safe for payouts (it releases the lock when the call fails, so a timeout resends). Built twice: the common way, with @aws-sdk/* external so the runtime's SDK is used (the CDK default), which is the peer to beat; and bundled like ours, to show what the bundling alone is worth.",
        'The sweep does more per event than the peer: a pause/cap-checked claim transaction and an audited outcome transaction, plus the work-queue Queries.',
      ],
    };
  } finally {
    await rig.dynamoDb.send(new DeleteTableCommand({ TableName: idempotencyTable })).catch(() => undefined);
    await rig.close();
  }
}

/** Runs each side's DynamoDB requests until DynamoDB Local's JVM has compiled them (see DATABASE_WARM_UP). */
async function warmUpDatabase(rig: EngineRig, idempotencyTable: string): Promise<void> {
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
  for (let round = 0; round < DATABASE_WARM_UP; round++) {
    await rig.engine.create(createCommand(bankTransfer(), `warm-${process.pid}-${round}`));
    await rig.engine.sweep({ stopStartingAt: Date.now() + 30_000 });
    await peerOperations({ idempotencyKey: `warm-${process.pid}-${round}` });
  }
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

/** Builds what ships: the options the CDK construct uses (`external` aside, for the peer's common way). */
async function bundle(
  entry: string,
  external: readonly string[],
  name = basename(entry, '.ts'),
): Promise<number> {
  const outfile = join(outDir, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: BUNDLE_OPTIONS.platform,
    target: BUNDLE_OPTIONS.target,
    format: BUNDLE_OPTIONS.format,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    minify: true,
    external: [...external],
    alias: { ...BUNDLE_OPTIONS.alias },
    banner: { js: BUNDLE_OPTIONS.banner },
    logLevel: 'error',
  });
  return statSync(outfile).size;
}

function childEnv(rig: EngineRig, endpoint: string, idempotencyTable: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
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
  name: string,
  event: unknown,
  env: NodeJS.ProcessEnv,
): Promise<Timing> {
  return spawnTimed([invoker, join(outDir, `${name}.mjs`), JSON.stringify(event)], env);
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

/** Runs one cold invocation and checks, by the sandbox's request count, that it made exactly one provider call. */
async function paysOne(rig: EngineRig, what: string, run: () => Promise<Timing>): Promise<Timing> {
  const before = await rig.providerCalls();
  const timing = await run();
  const calls = (await rig.providerCalls()) - before;
  if (calls !== 1)
    throw new Error(`${what} made ${calls} provider calls instead of 1: ${JSON.stringify(timing.result)}`);
  return timing;
}
