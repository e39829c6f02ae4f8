import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DisabledOperators, disabledOperatorsOf } from '../operators/index.js';
import { DynamoDbPayoutStore, type EngineConfig, type MetricsSink, PayoutLedger } from '../payouts/index.js';
import type { CredentialsSource, SecretsManagerLike } from '../provider/index.js';
import { type AwsCallObserver, observeAwsCalls } from '../shared/aws-call-observer.js';
import type { Clock } from '../shared/clock.js';
import { createDynamoDbClient } from '../shared/dynamodb-client.js';
import { EmfMetricsSink } from '../shared/emf-metrics.js';
import { lambdaLogger } from '../shared/lambda-logger.js';
import { localAwsConfig } from '../shared/local-aws-config.js';
import type { Logger } from '../shared/logger.js';
import { parseRuntimeEnv, type RuntimeEnv } from './runtime-config.js';

/** Everything a handler needs, built once per Lambda container (or once per `npm start`). */
export interface Runtime {
  readonly mode: 'aws' | 'local';
  readonly env: RuntimeEnv;
  readonly tableName: string;
  readonly dynamoDb: DynamoDBClient;
  readonly store: DynamoDbPayoutStore;
  /**
   * The payouts as records: create through the gate, read, cancel (approving and pausing are free functions over
   * its context; listing is `payoutListingOf`). What calls the provider is built on first use by the functions
   * whose path calls it, each in a file of its own, so a function that never calls the provider carries none of
   * its code (undici, the credentials, the gateway):
   * `payoutEngineOf` (payout-engine.ts: submit, sweep, reconcile), `providerConnectionOf`
   * (provider-connection.ts), `submissionsOf` (submissions.ts: the submission queue).
   */
  readonly payouts: PayoutLedger;
  /**
   * The SETTLEMENT_* variables as given. Only the functions that settle parse them into a policy
   * (`settlementPolicyOf(runtime)`, settlements.ts), so the others neither carry nor evaluate its schemas; the
   * stack validates the policy at synth (infra/config/stage-config.ts).
   */
  readonly settlementEnv: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /**
   * Which callers are operators an admin disabled (lib/operators/access.ts): every ops API function refuses their
   * tokens. Built here, with the table, so that the API's shared code (lib/api/api-function.ts) imports no SDK:
   * api-docs, which builds no runtime, carries none.
   */
  readonly disabledOperators: DisabledOperators;
  /** What the runtime was built with, for the parts built on first use (the provider's credentials, the observer). */
  readonly overrides: RuntimeOverrides;
  /** Writes the metrics gathered during one invocation (EMF in AWS; nothing locally). */
  flushMetrics(): void;
  /** Adds what `close` releases: a part built on first use that holds connections. */
  onClose(release: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export interface RuntimeOverrides {
  readonly logger?: Logger;
  readonly metrics?: MetricsSink;
  readonly clock?: Clock;
  readonly credentials?: CredentialsSource;
  /**
   * Reports every AWS SDK call the runtime's clients make, tagged with the function it serves (the IAM proof,
   * test/infra/iam-proof.test.ts). Never set in Lambda.
   */
  readonly awsCalls?: { readonly functionName: string; readonly observer: AwsCallObserver };
  /** The Secrets Manager client of AWS mode; the IAM proof passes one that answers without AWS. */
  readonly secretsManager?: SecretsManagerLike;
}

/**
 * Builds the runtime from environment variables: the table, the payout ledger, the logger and metrics. The
 * provider's connection (and with it the credentials: in AWS mode the token from its secret and, in the functions
 * that send money only, the PIN from its own) is built on first use (provider-connection.ts).
 *
 * @example
 * const runtime = createRuntime(process.env);
 * await payoutEngineOf(runtime).sweep();
 */
export function createRuntime(
  env: Record<string, string | undefined>,
  overrides: RuntimeOverrides = {},
): Runtime {
  const config = parseRuntimeEnv(env);
  const mode = config.AWS_LAMBDA_FUNCTION_NAME ? 'aws' : 'local';
  const logger =
    overrides.logger ??
    lambdaLogger({
      service: 'payouts',
      // Locally the same JSON lines, DEBUG only under LOG_LEVEL=DEBUG (docs/configuration.md).
      ...(mode === 'local' && {
        env: { POWERTOOLS_LOG_LEVEL: env.LOG_LEVEL === 'DEBUG' ? 'DEBUG' : 'INFO' },
      }),
    });
  const emf =
    overrides.metrics || mode !== 'aws'
      ? undefined
      : new EmfMetricsSink({ namespace: 'Payouts', service: 'payouts' });
  const metrics = overrides.metrics ?? emf;
  const dynamoDb = createDynamoDbClient(
    config.DYNAMODB_ENDPOINT
      ? {
          endpoint: config.DYNAMODB_ENDPOINT,
          ...localAwsConfig,
          region: config.AWS_REGION ?? localAwsConfig.region,
        }
      : {},
  );
  if (overrides.awsCalls)
    observeAwsCalls(dynamoDb, overrides.awsCalls.functionName, overrides.awsCalls.observer);
  const store = new DynamoDbPayoutStore(dynamoDb, config.TABLE_NAME);
  const payouts = new PayoutLedger({
    store,
    logger,
    config: engineConfigFrom(config),
    ...(metrics && { metrics }),
    ...(overrides.clock && { clock: overrides.clock }),
  });
  const releases: (() => Promise<void> | void)[] = [];
  return {
    mode,
    env: config,
    tableName: config.TABLE_NAME,
    dynamoDb,
    store,
    payouts,
    settlementEnv: Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('SETTLEMENT_'))),
    logger,
    disabledOperators: disabledOperatorsOf(dynamoDb, config.TABLE_NAME),
    overrides,
    flushMetrics: () => emf?.flush(),
    onClose: (release) => {
      releases.push(release);
    },
    async close() {
      await Promise.all(releases.map((release) => release()));
      dynamoDb.destroy();
    },
  };
}

/** `DAILY_CAP_KOBO` -> `dailyCapKobo`, as a type. */
type CamelOf<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Lowercase<Head>}${Capitalize<CamelOf<Tail>>}`
  : Lowercase<S>;

/** The engine's limits the environment may set, each the variable of its EngineConfig key (camel-cased). */
const ENGINE_VARIABLES = [
  'DAILY_CAP_KOBO',
  'APPROVAL_THRESHOLD_KOBO',
  'SECOND_APPROVAL_THRESHOLD_KOBO',
  'SUBMIT_LEASE_MS',
  'RECONCILE_GRACE_MS',
  'RECONCILE_INTERVAL_MS',
  'MAX_ABSENT_ATTEMPTS',
  'WATCH_WINDOW_MS',
  'RETRY_BASE_MS',
  'MAX_LATENESS_MS',
] as const satisfies readonly (keyof RuntimeEnv & Uppercase<string>)[];
// Fails to compile if a variable's camel-cased name is not a numeric key of EngineConfig.
type EngineKeysChecked = Pick<EngineConfig, CamelOf<(typeof ENGINE_VARIABLES)[number]>>;

function engineConfigFrom(config: RuntimeEnv): Partial<EngineConfig> {
  // Named by their camel-cased variables (the names written once, which keeps the sweeper's bundle in its limit).
  const entries = ENGINE_VARIABLES.flatMap((name) => {
    const value = config[name];
    const key = name.toLowerCase().replace(/_(.)/g, (_, letter: string) => letter.toUpperCase());
    return value === undefined ? [] : [[key, value] as const];
  });
  return {
    ...(Object.fromEntries(entries) as Partial<EngineKeysChecked>),
    // The maximum governs every instruction (refunds, rules, corrections too), whatever its variable says.
    ...(config.MAX_PAYOUT_KOBO !== undefined && { maxInstructionKobo: config.MAX_PAYOUT_KOBO }),
    ...(config.MAIN_WALLET_ID !== undefined && { mainWalletId: config.MAIN_WALLET_ID }),
    ...(config.APPROVER_LIMITS !== undefined && { approverLimits: config.APPROVER_LIMITS }),
  };
}

let cached: Runtime | undefined;

/**
 * The container's runtime, built on first use from process.env (module scope: reused across invocations).
 * `overrides` apply to that first build only: `npm start` and the local end-to-end tests pass an AWS call
 * observer (the IAM proof); Lambda passes none.
 */
export function runtimeFromProcessEnv(overrides: RuntimeOverrides = {}): Runtime {
  cached ??= createRuntime(process.env, overrides);
  return cached;
}
