/**
 * `npm start`: the whole system on one machine. DynamoDB Local (table created; or DYNAMODB_ENDPOINT, a DynamoDB
 * Local already running on this machine, e.g. with -dbPath, whose table is created only if missing), the provider sandbox (unless
 * PROVIDER_BASE_URL, PROVIDER_TOKEN and PROVIDER_PIN point elsewhere), the ops API on 127.0.0.1:OPS_PORT
 * (default 3000) through the same router as the Lambda, and a scheduler that runs the same functions as the
 * EventBridge schedules. Ctrl-C (or SIGTERM) stops everything and exits 0.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { apiFunctionServing } from '../lib/api/functions/index.js';
import { createApiHandler } from '../lib/api/index.js';
import { apiContextFrom } from '../lib/api/services-from-runtime.js';
import type { DomainEvent } from '../lib/events/domain-events.js';
import { type EventPublisher, InProcessEventBus, putEventsInput } from '../lib/events/event-publisher.js';
import { payoutRequested } from '../lib/events/rule-targets.js';
import { INBOUND_EVENT_SOURCE, InboundEventType } from '../lib/events/schemas.js';
import { settlementAvailable } from '../lib/events/settlement-target.js';
import { pollSettlements } from '../lib/jobs/poll-settlements.js';
import { reconcilePayouts } from '../lib/jobs/reconciler-tick.js';
import { sweepDuePayouts } from '../lib/jobs/sweep-due-payouts.js';
import { syncProviderSchedules } from '../lib/jobs/sync-provider-schedules.js';
import { awsCallRecorder } from '../lib/local/aws-call-recorder.js';
import { LOCAL_OPERATORS, type LocalUserPool, startLocalUserPool } from '../lib/local/cognito-local.js';
import { LOCAL_CONSOLE_PATH, localConsoleSite } from '../lib/local/console-site.js';
import { ensureTable } from '../lib/local/create-table.js';
import { type DynamoDbLocal, dynamoDbLocalDir, startDynamoDbLocal } from '../lib/local/dynamodb-local.js';
import { type LocalEventBus, serveLocalEventBus } from '../lib/local/event-bus.js';
import { servedBy } from '../lib/local/function-attribution.js';
import { type LocalApiServer, serveApiGatewayHandler } from '../lib/local/http-to-apigw.js';
import { userPoolTokenVerifier } from '../lib/local/operator-tokens.js';
import { type LocalJob, type LocalScheduler, startLocalScheduler } from '../lib/local/scheduler.js';
import { serveLocalSns } from '../lib/local/sns-endpoint.js';
import { StreamRelay } from '../lib/local/stream-relay.js';
import {
  type LocalSubmissionWorkers,
  stageConfigOf,
  startLocalSubmissionWorkers,
} from '../lib/local/submission-workers.js';
import { verifiedCallerOf } from '../lib/local/verified-caller.js';
import { NOTIFIED_EVENTS, notify } from '../lib/notifications/index.js';
import { runEndBookkeeperOf } from '../lib/runtime/domain-event-runtime.js';
import { notifierFromEnv } from '../lib/runtime/notifier.js';
import { operatorsOf } from '../lib/runtime/operators.js';
import { type Runtime, runtimeFromProcessEnv } from '../lib/runtime/runtime.js';
import { isLoopbackUrl } from '../lib/runtime/runtime-config.js';
import { settlementPolicyOf } from '../lib/runtime/settlements.js';
import { type Sandbox, startSandbox } from '../lib/sandbox/index.js';
import { jsonConsoleLogger } from '../lib/shared/logger.js';
import { describeIssues, fieldIssues } from '../lib/shared/validation.js';
import * as z from '../lib/shared/zod.js';

const port = (fallback: number | undefined) =>
  z.pipe(
    z.optional(z.string().check(z.regex(/^\d{0,5}$/, 'must be a port number'))),
    z.transform((value: string | undefined) => (value ? Number(value) : fallback)),
  );

const StartEnvSchema = z.object({
  OPS_PORT: port(3000),
  /** The local event bus (PutEvents); 0 picks a free port. */
  EVENTS_PORT: port(3001),
  /** 0 or unset: a free port. */
  DYNAMODB_PORT: port(undefined),
  /**
   * A DynamoDB Local already running (e.g. `-dbPath` for a table that outlives the stack): used instead of
   * starting one, its table created only if missing. On this machine only, like the provider.
   */
  DYNAMODB_ENDPOINT: z.optional(
    z
      .url()
      .check(
        z.refine(
          isLoopbackUrl,
          'must be on this machine (127.0.0.1, localhost or [::1]): npm start never uses a deployed table',
        ),
      ),
  ),
  SANDBOX_PORT: port(undefined),
  /** The operators' user pool (cognito-local); 0 or unset: a free port. */
  COGNITO_PORT: port(undefined),
  /**
   * `1`: a request without a token is whoever its `X-Ops-Principal` header names, holding every role unless
   * `X-Ops-Roles` narrows them. Unsafe (anyone on this machine is anyone): for tests and benchmarks only.
   */
  LOCAL_TRUST_PRINCIPAL_HEADER: z.optional(z.enum(['0', '1'])),
  /** The submission queue's SQS stand-in (SendMessageBatch); 0 or unset: a free port. */
  SQS_PORT: port(undefined),
  TABLE_NAME: z._default(z.string().check(z.minLength(1)), 'payouts-local'),
  SCHEDULER_INTERVAL_MS: z.pipe(
    z.optional(z.string().check(z.regex(/^\d+$/, 'must be milliseconds'))),
    z.transform((value: string | undefined) => (value === undefined ? 2000 : Math.max(200, Number(value)))),
  ),
  /** Another provider stand-in on this machine; local mode never calls a real provider (a laptop moving money). */
  PROVIDER_BASE_URL: z.optional(
    z
      .url()
      .check(
        z.refine(
          isLoopbackUrl,
          'must be on this machine (127.0.0.1, localhost or [::1]): npm start never calls a real provider; deploy a stage to use one',
        ),
      ),
  ),
  PROVIDER_TOKEN: z.optional(z.string()),
  PROVIDER_PIN: z.optional(z.string()),
  /**
   * Notifications (docs/operations.md, "Notifications"): a webhook receiver on this machine that gets each one
   * signed with NOTIFY_WEBHOOK_SIGNING_KEY; without it only the SNS stand-in (SNS_PORT) receives them.
   */
  NOTIFY_WEBHOOK_URL: z.optional(
    z
      .url()
      .check(
        z.refine(
          isLoopbackUrl,
          'must be on this machine (127.0.0.1, localhost or [::1]): npm start never notifies anyone elsewhere',
        ),
      ),
  ),
  NOTIFY_WEBHOOK_SIGNING_KEY: z._default(z.string().check(z.minLength(16)), 'local-webhook-signing-key'),
  /** The notification topic's SNS stand-in (Publish); 0 or unset: a free port. */
  SNS_PORT: port(undefined),
  /** Appends every AWS call, with the function that would make it in AWS, to this file (the IAM proof's e2e). */
  RECORD_AWS_CALLS_TO: z.optional(z.string().check(z.minLength(1))),
});

/**
 * What one sweep invocation may take: the `sweep-due-payouts` Lambda's 2-minute timeout (infra/handlers.ts), so its
 * stop margins (lib/jobs/scheduled.ts; refunds start only with 90 s left) leave it the same time to work as in AWS.
 */
const SWEEP_BUDGET_MS = 120_000;
/** The provider's own schedules change rarely; in AWS this job runs on its own slower schedule. */
const PROVIDER_SYNC_EVERY_MS = 5 * 60_000;

const root = resolve(import.meta.dirname, '..');

/** What runs, in start order; stopped in reverse. */
const stack: { name: string; stop: () => Promise<void> }[] = [];
let stopping = false;

async function stopAll(why: string, exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${why}: stopping`);
  for (const part of stack.reverse()) {
    try {
      await part.stop();
      console.log(`  stopped ${part.name}`);
    } catch (error) {
      console.error(`  could not stop ${part.name}: ${error instanceof Error ? error.message : error}`);
    }
  }
  process.exit(exitCode);
}

async function main(): Promise<void> {
  process.once('SIGINT', () => void stopAll('SIGINT received', 0));
  process.once('SIGTERM', () => void stopAll('SIGTERM received', 0));
  const parsedEnv = StartEnvSchema.safeParse(process.env);
  if (!parsedEnv.success) throw new Error(describeIssues(fieldIssues(parsedEnv.error)));
  const env = parsedEnv.data;

  if (!env.DYNAMODB_ENDPOINT && !existsSync(join(dynamoDbLocalDir, 'DynamoDBLocal.jar'))) {
    console.log('Installing DynamoDB Local (once) ...');
    execFileSync(process.execPath, [join(root, 'scripts', 'install-dynamodb-local.mjs')], {
      stdio: 'inherit',
    });
  }
  // An endpoint given is someone else's process (and its data theirs): used, never stopped.
  const dynamoDb: DynamoDbLocal = env.DYNAMODB_ENDPOINT
    ? { endpoint: env.DYNAMODB_ENDPOINT, stop: async () => undefined }
    : await startDynamoDbLocal(env.DYNAMODB_PORT ? { port: env.DYNAMODB_PORT } : {});
  if (!env.DYNAMODB_ENDPOINT) stack.push({ name: 'DynamoDB Local', stop: () => dynamoDb.stop() });

  const external = env.PROVIDER_BASE_URL !== undefined;
  if (external && !(env.PROVIDER_TOKEN && env.PROVIDER_PIN)) {
    throw new Error('PROVIDER_BASE_URL is set: set PROVIDER_TOKEN and PROVIDER_PIN too');
  }
  let sandbox: Sandbox | undefined;
  if (!external) {
    sandbox = await startSandbox(env.SANDBOX_PORT ? { port: env.SANDBOX_PORT } : {});
    const started = sandbox;
    stack.push({ name: 'provider sandbox', stop: () => started.close() });
  }
  const provider = sandbox
    ? { PROVIDER_BASE_URL: sandbox.url, PROVIDER_TOKEN: sandbox.token, PROVIDER_PIN: sandbox.pin }
    : {
        PROVIDER_BASE_URL: env.PROVIDER_BASE_URL,
        PROVIDER_TOKEN: env.PROVIDER_TOKEN,
        PROVIDER_PIN: env.PROVIDER_PIN,
      };

  // The submission queue: the SQS stand-in with the dev stage's settings, delivering to the deployed worker
  // (functions/submit-payouts.ts), which builds its runtime from process.env as it does in Lambda.
  const submissionWorkers: LocalSubmissionWorkers = await startLocalSubmissionWorkers({
    config: stageConfigOf('dev'),
    loadWorker: async () => (await import('../functions/submit-payouts.js')).handler,
    logger: jsonConsoleLogger({ service: 'payouts' }),
    ...(env.SQS_PORT && { port: env.SQS_PORT }),
  });

  // Local mode: never a Secrets Manager id, always the local table. The environment is the process's, so the
  // handler modules the stand-ins invoke share this runtime, as the functions of one container would.
  delete process.env.PROVIDER_TOKEN_SECRET_ID;
  delete process.env.PROVIDER_PIN_SECRET_ID;
  Object.assign(process.env, {
    ...provider,
    TABLE_NAME: env.TABLE_NAME,
    DYNAMODB_ENDPOINT: dynamoDb.endpoint,
    ...submissionWorkers.environment,
  });
  const recorder = env.RECORD_AWS_CALLS_TO ? awsCallRecorder(env.RECORD_AWS_CALLS_TO) : undefined;
  const runtime: Runtime = runtimeFromProcessEnv(recorder ? { awsCalls: recorder } : {});
  stack.push({ name: 'runtime', stop: () => runtime.close() });
  // Stopped before the runtime: its invocations under way finish with the clients still open.
  stack.push({ name: 'submission queue', stop: () => submissionWorkers.stop() });
  await ensureTable(runtime.dynamoDb, env.TABLE_NAME);

  // The operators' user pool: the API takes a caller's ID token of it, verified here as API Gateway's JWT
  // authorizer would, and (only with LOCAL_TRUST_PRINCIPAL_HEADER=1) a request without one at its header's word.
  const pool: LocalUserPool = await startLocalUserPool(env.COGNITO_PORT ? { port: env.COGNITO_PORT } : {});
  stack.push({ name: 'user pool (cognito-local)', stop: () => pool.stop() });
  const trustPrincipalHeader = env.LOCAL_TRUST_PRINCIPAL_HEADER === '1';

  // Each entry point runs as the function that serves it in AWS (servedBy), so recorded calls are told apart.
  const apiHandler = createApiHandler({
    ...apiContextFrom(runtime),
    // Admins manage the operators of this pool (`/operators`), through cognito-local's endpoint.
    operators: operatorsOf(runtime, { userPoolId: pool.userPoolId, endpoint: pool.endpoint }),
    localPrincipalHeader: trustPrincipalHeader ? 'trusted' : 'ignored',
    verifiedCaller: verifiedCallerOf,
  });
  const api: LocalApiServer = await serveApiGatewayHandler(
    // One handler serves every route here; each request runs as the function that serves its route in AWS.
    (event) =>
      servedBy(apiFunctionServing(event.requestContext.http.method, event.rawPath), () => apiHandler(event)),
    {
      port: env.OPS_PORT ?? 3000,
      onError: (error) => runtime.logger.error('local server failure', { error: String(error) }),
      identity: {
        verifier: userPoolTokenVerifier(pool),
        trustPrincipalHeader,
        signIn: { endpoint: pool.endpoint, userPoolId: pool.userPoolId, clientId: pool.clientId },
      },
      // The finance team's console on the API's own origin, signing in to the local pool (docs/console.md).
      site: localConsoleSite(
        { endpoint: pool.endpoint, userPoolId: pool.userPoolId, clientId: pool.clientId },
        process.env.STATEMENT_TIME_ZONE ?? 'Africa/Lagos',
      ),
    },
  );
  stack.push({ name: 'ops API', stop: () => api.close() });

  // The EventBridge schedules, as the same job entry points the scheduled functions run.
  const jobs = [
    { name: 'sweep-due-payouts', run: () => sweepDuePayouts(runtime, SWEEP_BUDGET_MS) },
    {
      name: 'sync-provider-schedules',
      run: () => syncProviderSchedules(runtime),
      everyMs: PROVIDER_SYNC_EVERY_MS,
    },
    { name: 'reconcile-payouts', run: () => reconcilePayouts(runtime) },
    // Instant settlement, when SETTLEMENT_DESTINATION_* are set: pays settlements no trigger decided yet.
    ...(settlementPolicyOf(runtime)
      ? [{ name: 'poll-settlements', run: () => pollSettlements(runtime) }]
      : []),
  ];
  const scheduler: LocalScheduler = startLocalScheduler(
    jobs.map((job): LocalJob => ({ ...job, run: () => servedBy<Promise<unknown>>(job.name, job.run) })),
    {
      intervalMs: env.SCHEDULER_INTERVAL_MS,
      logger: runtime.logger,
    },
  );
  stack.push({ name: 'scheduler', stop: () => scheduler.stop() });

  // Inbound events, as the service's EventBridge bus and its two rules deliver them in AWS (the same rule
  // targets the functions run); invalid ones go to the dead-letter items in the table.
  const bus: LocalEventBus = await serveLocalEventBus(
    [
      {
        name: 'payout-requested',
        source: INBOUND_EVENT_SOURCE,
        detailType: InboundEventType.PayoutRequested,
        deliver: asFunction('payout-requested', (event) => payoutRequested(runtime, event)),
      },
      {
        name: 'settlement-available',
        source: INBOUND_EVENT_SOURCE,
        detailType: InboundEventType.SettlementAvailable,
        deliver: asFunction('settlement-available', (event) => settlementAvailable(runtime, event)),
      },
    ],
    { port: env.EVENTS_PORT ?? 3001, logger: runtime.logger },
  );
  stack.push({ name: 'event bus', stop: () => bus.close() });

  // Notifications: the notifier the engine's events reach through their rule in AWS, publishing to the SNS
  // stand-in (each message logged) and, with NOTIFY_WEBHOOK_URL, to a receiver on this machine, signed.
  const sns = await serveLocalSns({ ...(env.SNS_PORT && { port: env.SNS_PORT }), logger: runtime.logger });
  stack.push({ name: 'SNS stand-in', stop: () => sns.close() });
  const notifier = notifierFromEnv(
    {
      TABLE_NAME: env.TABLE_NAME,
      DYNAMODB_ENDPOINT: dynamoDb.endpoint,
      NOTIFY_TOPIC_ARN: sns.topicArn,
      SNS_ENDPOINT: sns.url,
      ...(env.NOTIFY_WEBHOOK_URL && {
        NOTIFY_WEBHOOK_URL: env.NOTIFY_WEBHOOK_URL,
        NOTIFY_WEBHOOK_SIGNING_KEY: env.NOTIFY_WEBHOOK_SIGNING_KEY,
      }),
    },
    { logger: runtime.logger },
  );
  stack.push({ name: 'notifier', stop: async () => notifier.close() });
  const domainBus = new InProcessEventBus(runtime.logger);
  const notified: readonly string[] = NOTIFIED_EVENTS;
  domainBus.subscribe((event) => {
    if (!notified.includes(event.detailType)) return;
    void servedBy('notify-approvers', () =>
      notify(notifier, { 'detail-type': event.detailType, detail: JSON.parse(JSON.stringify(event.detail)) }),
    ).catch((error: unknown) =>
      runtime.logger.error('notification failed (EventBridge would retry it)', {
        eventId: event.detail.eventId,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  });

  // Domain events: the table's stream, read as the AWS event source mapping would, logged in-process.
  const relay = await StreamRelay.forTable(
    runtime.dynamoDb,
    dynamoDb.endpoint,
    env.TABLE_NAME,
    domainEventPublisher(domainBus, recorder),
    runtime.logger,
    // As publish-domain-events in AWS: payout runs count their rows' ends and record their end from the stream.
    { bookkeeper: runEndBookkeeperOf(runtime.dynamoDb, env.TABLE_NAME, runtime.logger) },
  );
  relay.start(1000);
  stack.push({ name: 'domain-event relay', stop: () => relay.stop() });

  console.log(
    banner({
      api,
      bus,
      dynamoDb,
      env,
      sandbox,
      jobs: jobs.map((job) => job.name),
      submissionQueue: submissionWorkers.endpoint.queueUrl,
      notifications: `SNS stand-in ${sns.url}${env.NOTIFY_WEBHOOK_URL ? `, webhook ${env.NOTIFY_WEBHOOK_URL} (signed)` : ' (NOTIFY_WEBHOOK_URL: a signed webhook too)'}`,
      fixtures: sandbox ? await fixturesOf(sandbox) : undefined,
      pool,
      trustPrincipalHeader,
    }),
  );
  console.log(`ops API ready on ${api.url}`);
}

/** A bus rule's target, run as the function the rule invokes in AWS. */
function asFunction<E>(
  name: string,
  deliver: (event: E) => Promise<unknown>,
): (event: E) => Promise<unknown> {
  return (event) => servedBy(name, () => deliver(event));
}

/**
 * The stream relay's publisher, run as `publish-domain-events`; with a recorder, each batch is also recorded
 * as the PutEvents that function sends in AWS (locally the events stay in the process).
 */
function domainEventPublisher(bus: EventPublisher, recorder: ReturnType<typeof awsCallRecorder> | undefined) {
  const name = 'publish-domain-events';
  return {
    publish: (events: readonly DomainEvent[]) =>
      servedBy(name, async () => {
        if (recorder && events.length > 0) {
          await recorder.observer({
            functionName: name,
            client: 'EventBridgeClient',
            command: 'PutEventsCommand',
            input: putEventsInput(events, 'payouts-local'),
          });
        }
        await bus.publish(events);
      }),
  };
}

const FixturesSchema = z.object({
  merchantWalletId: z.string(),
  stores: z.array(z.object({ id: z.string(), walletId: z.string() })),
  childAccounts: z.array(z.object({ id: z.string(), walletId: z.string() })),
  bankCodes: z.array(z.string()),
});
type Fixtures = z.infer<typeof FixturesSchema>;

/** The sandbox's ids, read the way any client would: over HTTP. */
async function fixturesOf(sandbox: Sandbox): Promise<Fixtures> {
  const response = await fetch(`${sandbox.url}/__sandbox/fixtures`);
  if (!response.ok) throw new Error(`sandbox fixtures answered ${response.status}`);
  return FixturesSchema.parse(await response.json());
}

function banner(parts: {
  api: LocalApiServer;
  bus: LocalEventBus;
  dynamoDb: DynamoDbLocal;
  env: z.infer<typeof StartEnvSchema>;
  sandbox: Sandbox | undefined;
  jobs: readonly string[];
  fixtures: Fixtures | undefined;
  submissionQueue: string;
  notifications: string;
  pool: LocalUserPool;
  trustPrincipalHeader: boolean;
}): string {
  const { api, bus, dynamoDb, env, sandbox, jobs, fixtures, submissionQueue, notifications, pool } = parts;
  const lines = [
    '',
    'payout-automation is running locally',
    `  ops API          ${api.url}   (OpenAPI: ${api.url}/openapi.json)`,
    `  console          ${api.url}${LOCAL_CONSOLE_PATH}   (sign in as an operator below)`,
    `  DynamoDB Local   ${dynamoDb.endpoint}   table ${env.TABLE_NAME}${env.DYNAMODB_ENDPOINT ? ' (DYNAMODB_ENDPOINT: kept across restarts)' : ''}`,
    sandbox
      ? `  provider         sandbox at ${sandbox.url} (token ${sandbox.token})`
      : `  provider         ${env.PROVIDER_BASE_URL} (external; no sandbox started)`,
    `  scheduler        ${jobs.join(', ')} every ${env.SCHEDULER_INTERVAL_MS} ms (no overlapping ticks)`,
    `  submission queue ${submissionQueue}   (SQS FIFO stand-in -> functions/submit-payouts.ts)`,
    `  event bus        ${bus.url}   (PutEvents: aws events put-events --endpoint-url ${bus.url} ...)`,
    `  notifications    ${notifications}`,
    `  user pool        cognito-local ${pool.endpoint}   pool ${pool.userPoolId}, client ${pool.clientId}`,
    '',
    'Operators (local-only passwords: this pool exists on this machine only, for as long as npm start runs)',
    ...LOCAL_OPERATORS.map(
      (user) => `  ${user.username.padEnd(8)} ${user.group.padEnd(10)} password ${user.password}`,
    ),
    `  sign in          echo '${LOCAL_OPERATORS[1].password}' | npx payouts --api ${api.url} login --user bob --password-stdin`,
    parts.trustPrincipalHeader
      ? '  LOCAL_TRUST_PRINCIPAL_HEADER=1: requests without a token are whoever X-Ops-Principal names (UNSAFE: tests only)'
      : '  every request needs Authorization: Bearer <ID token> (payouts token --principal NAME prints it)',
  ];
  if (fixtures) {
    const bankCode = fixtures.bankCodes.includes('058') ? '058' : (fixtures.bankCodes[0] ?? '058');
    lines.push(
      '',
      'Sandbox fixtures',
      `  merchant wallet  ${fixtures.merchantWalletId}`,
      ...fixtures.stores.map((store) => `  store ${store.id}       wallet ${store.walletId}`),
      ...fixtures.childAccounts.map((child) => `  child account    ${child.id} (wallet ${child.walletId})`),
      `  bank codes       ${fixtures.bankCodes.join(', ')}`,
      '',
      'Try it',
      `  TOKEN=$(npx payouts --api ${api.url} token --principal alice)   # after signing alice in`,
      `  curl -s -X POST ${api.url}/payouts -H "Authorization: Bearer $TOKEN" \\`,
      "    -H 'content-type: application/json' -H 'Idempotency-Key: demo-1' \\",
      `    -d '{"type":"bank_transfer","amount":250000,"currency":"NGN","narration":"demo payout",` +
        `"beneficiary":{"bankCode":"${bankCode}","accountNumber":"0123456789","accountName":"Ada Obi"}}'`,
      `  curl -s ${api.url}/payouts -H "Authorization: Bearer $TOKEN"`,
      `  curl -s -X POST ${bus.url} -H 'content-type: application/json' -d '{"Entries":[{"Source":"${INBOUND_EVENT_SOURCE}","DetailType":"${InboundEventType.PayoutRequested}",` +
        `"Detail":"{\\"version\\":\\"1\\",\\"idempotencyKey\\":\\"evt-1\\",\\"payout\\":{\\"type\\":\\"bank_transfer\\",\\"amount\\":120000,` +
        `\\"currency\\":\\"NGN\\",\\"narration\\":\\"event payout\\",\\"beneficiary\\":{\\"bankCode\\":\\"${bankCode}\\",` +
        `\\"accountNumber\\":\\"0123456789\\",\\"accountName\\":\\"Ada Obi\\"}}}"}]}'`,
    );
  }
  lines.push('', 'Ctrl-C stops everything.', '');
  return lines.join('\n');
}

main().catch((error: unknown) => {
  console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  void stopAll('start-up failed', 1);
});
