import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { CorrectionWorkQueue } from '../bulk-corrections/job-queue.js';
import { type PayoutProvider, ProviderPayoutGateway } from '../payouts/adapters/provider-payout-gateway.js';
import { regionOfQueueUrl, SqsSubmissionQueue } from '../payouts/adapters/sqs-submission-queue.js';
import type { EngineConfig } from '../payouts/config.js';
import type { MetricsSink } from '../payouts/engine/context.js';
import { PayoutEngine } from '../payouts/payout-engine.js';
import type { SubmissionQueue } from '../payouts/queue/submission-queue.js';
import { DynamoDbPayoutStore } from '../payouts/store/dynamodb-payout-store.js';
import { ProviderConnection } from '../provider/connection.js';
import { type CredentialsSource, StaticCredentialsSource } from '../provider/credentials.js';
import { ChildAccounts } from '../provider/resources/child-accounts.js';
import { Settlements } from '../provider/resources/settlements.js';
import { Transactions } from '../provider/resources/transactions.js';
import { Wallets } from '../provider/resources/wallets.js';
import type { SecretsManagerLike } from '../provider/secrets-manager-credentials.js';
import { SecretsManagerCredentialsSource } from '../provider/secrets-manager-credentials.js';
import type { Clock } from '../shared/clock.js';
import { createDynamoDbClient } from '../shared/dynamodb-client.js';
import { EmfMetricsSink } from '../shared/emf-metrics.js';
import { lambdaLogger } from '../shared/lambda-logger.js';
import { localAwsConfig } from '../shared/local-aws-config.js';
import { jsonConsoleLogger, type Logger } from '../shared/logger.js';
import { type AwsCallObserver, observeAwsCalls } from './aws-call-observer.js';
import { parseRuntimeEnv, type RuntimeEnv } from './runtime-config.js';

/** Everything a handler needs, built once per Lambda container (or once per `npm start`). */
export interface Runtime {
  readonly mode: 'aws' | 'local';
  readonly env: RuntimeEnv;
  readonly tableName: string;
  readonly dynamoDb: DynamoDBClient;
  readonly store: DynamoDbPayoutStore;
  /**
   * The connection to the provider. Each service builds the resources it calls on it (`providerOf(runtime)`,
   * provider.ts, is every resource, for the API), so a function's bundle carries only the resources its path calls.
   */
  readonly providerConnection: ProviderConnection;
  readonly engine: PayoutEngine;
  /** Where the sweeper hands due payouts to the workers; undefined (it submits them itself) without SUBMIT_QUEUE_URL. */
  readonly submissions: SubmissionQueue | undefined;
  /** Where the API hands correction-job work to the same workers (the submission queue); undefined without it. */
  readonly correctionWork: CorrectionWorkQueue | undefined;
  /**
   * The SETTLEMENT_* variables as given. Only the functions that settle parse them into a policy
   * (`settlementPolicyOf(runtime)`, settlements.ts), so the others neither carry nor evaluate its schemas; the
   * stack validates the policy at synth (infra/config/stage-config.ts).
   */
  readonly settlementEnv: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Writes the metrics gathered during one invocation (EMF in AWS; nothing locally). */
  flushMetrics(): void;
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
 * Builds the runtime from environment variables. AWS mode reads the provider's token from its secret and,
 * in the functions that send money only, the PIN from its own secret (each cached in memory, refreshed on a
 * 401); local mode takes them from PROVIDER_TOKEN / PROVIDER_PIN.
 *
 * @example
 * const runtime = createRuntime(process.env);
 * await runtime.engine.sweep();
 */
export function createRuntime(
  env: Record<string, string | undefined>,
  overrides: RuntimeOverrides = {},
): Runtime {
  const config = parseRuntimeEnv(env);
  const mode = config.AWS_LAMBDA_FUNCTION_NAME ? 'aws' : 'local';
  const logger =
    overrides.logger ??
    (mode === 'aws' ? lambdaLogger({ service: 'payouts' }) : jsonConsoleLogger({ service: 'payouts' }));
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
  const credentials = overrides.credentials ?? credentialsFor(config, overrides);
  const provider = new ProviderConnection({
    baseUrl: config.PROVIDER_BASE_URL,
    credentials,
    logger,
    ...(config.PROVIDER_TIMEOUT_MS && { timeouts: { requestMs: config.PROVIDER_TIMEOUT_MS } }),
  });
  const store = new DynamoDbPayoutStore(dynamoDb, config.TABLE_NAME);
  const engine = new PayoutEngine({
    store,
    gateway: new ProviderPayoutGateway(payoutProviderOn(provider)),
    logger,
    config: engineConfigFrom(config),
    ...(metrics && { metrics }),
    ...(overrides.clock && { clock: overrides.clock }),
  });
  const submissions = submissionQueueFor(config, mode, overrides);
  return {
    mode,
    env: config,
    tableName: config.TABLE_NAME,
    dynamoDb,
    store,
    providerConnection: provider,
    engine,
    submissions,
    correctionWork: submissions,
    settlementEnv: Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('SETTLEMENT_'))),
    logger,
    flushMetrics: () => emf?.flush(),
    async close() {
      await provider.close();
      dynamoDb.destroy();
    },
  };
}

/** The resources the engine sends and looks up payouts with, on the runtime's one connection. */
function payoutProviderOn(connection: ProviderConnection): PayoutProvider {
  const { requester } = connection;
  return {
    prepare: () => connection.prepare(),
    settlements: new Settlements(requester),
    wallets: new Wallets(requester),
    childAccounts: new ChildAccounts(requester),
    transactions: new Transactions(requester),
  };
}

function submissionQueueFor(
  config: RuntimeEnv,
  mode: Runtime['mode'],
  overrides: RuntimeOverrides,
): SqsSubmissionQueue | undefined {
  if (!config.SUBMIT_QUEUE_URL) return undefined;
  return new SqsSubmissionQueue({
    queueUrl: config.SUBMIT_QUEUE_URL,
    region: config.AWS_REGION ?? regionOfQueueUrl(config.SUBMIT_QUEUE_URL) ?? localAwsConfig.region,
    // In Lambda the function role's credentials (the environment); locally the stand-in checks none.
    credentials: mode === 'aws' ? defaultProvider() : localAwsConfig.credentials,
    ...(config.SQS_ENDPOINT && { endpoint: config.SQS_ENDPOINT }),
    ...(overrides.awsCalls && { observe: overrides.awsCalls }),
  });
}

function credentialsFor(config: RuntimeEnv, overrides: RuntimeOverrides): CredentialsSource {
  if (config.PROVIDER_TOKEN_SECRET_ID) {
    const client = overrides.secretsManager ?? new SecretsManagerClient({});
    if (overrides.awsCalls && client instanceof SecretsManagerClient)
      observeAwsCalls(client, overrides.awsCalls.functionName, overrides.awsCalls.observer);
    // The PIN's secret is named only to the functions that send money; the others hold no PIN and never ask.
    return new SecretsManagerCredentialsSource({
      tokenSecretId: config.PROVIDER_TOKEN_SECRET_ID,
      ...(config.PROVIDER_PIN_SECRET_ID && { pinSecretId: config.PROVIDER_PIN_SECRET_ID }),
      client,
    });
  }
  // parseRuntimeEnv guarantees both are present when there is no secret id.
  return new StaticCredentialsSource({ token: config.PROVIDER_TOKEN ?? '', pin: config.PROVIDER_PIN ?? '' });
}

function engineConfigFrom(config: RuntimeEnv): Partial<EngineConfig> {
  const entries: [keyof EngineConfig, number | undefined][] = [
    ['maxPayoutKobo', config.MAX_PAYOUT_KOBO],
    ['dailyCapKobo', config.DAILY_CAP_KOBO],
    ['approvalThresholdKobo', config.APPROVAL_THRESHOLD_KOBO],
    ['submitLeaseMs', config.SUBMIT_LEASE_MS],
    ['reconcileGraceMs', config.RECONCILE_GRACE_MS],
    ['reconcileIntervalMs', config.RECONCILE_INTERVAL_MS],
    ['maxAbsentAttempts', config.MAX_ABSENT_ATTEMPTS],
    ['watchWindowMs', config.WATCH_WINDOW_MS],
    ['retryBaseMs', config.RETRY_BASE_MS],
    ['maxLatenessMs', config.MAX_LATENESS_MS],
  ];
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
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
