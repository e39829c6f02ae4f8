import * as z from 'zod/mini';
import { ApiRoleGrantsSchema } from '../../lib/operators/roles.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { ApproverLimitsSchema } from '../../lib/runtime/runtime-config.js';
import { settlementPolicyFromEnv } from '../../lib/settlement/config.js';

z.config(z.locales.en());

const kobo = z.int().check(z.positive());

/** Log retention values CloudWatch accepts (days). */
const RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 3653,
] as const;

/**
 * Everything that differs between stages, validated once in `infra/app.ts`. Limits are in kobo, as the
 * engine counts them; they reach the functions as the environment variables `lib/runtime/runtime-config.ts` reads.
 */
export const StageConfigSchema = z.strictObject({
  /** Base URL of the payments provider's API for this stage (sandbox for dev). */
  providerBaseUrl: z.url({ protocol: /^https$/ }),
  maxPayoutKobo: kobo,
  dailyCapKobo: kobo,
  approvalThresholdKobo: kobo,
  /**
   * At or above it an instruction (a payout, refund, recurring rule's occurrence, run's total, bulk correction)
   * waits for two approvals by two persons, neither its requester (docs/controls.md, "Approver limits and two
   * approvers"). At least `approvalThresholdKobo`. Omitted (the default): one approval.
   */
  secondApprovalThresholdKobo: z.optional(kobo),
  /**
   * The most an approver may approve, in kobo: `defaultKobo` for every approver, `byApprover` by the principal id
   * as recorded (`person/cognito:<sub>`, a local name). Omitted (the default): no limit.
   */
  approverLimits: z.optional(ApproverLimitsSchema),
  /**
   * The provider's id of the merchant's main wallet: wallet transfers and debits out of it count on the main
   * wallet's daily cap counter with bank transfers. Omitted, every wallet counts there (docs/controls.md, "The
   * instruction"): the cap fails closed.
   */
  mainWalletId: z.optional(z.string().check(z.minLength(1))),
  /**
   * IAM roles whose session name is bound to the person (trust policy or IAM Identity Center; a trailing `*`
   * matches a prefix), so four eyes tells their sessions apart: docs/controls.md, "Identity". Default: none.
   */
  opsSessionNamedRoles: z._default(z.array(z.string().check(z.regex(/^[\w+=.@-]{1,64}\*?$/))), []),
  /**
   * The API roles of machine callers (and of people who come through IAM Identity Center), by the IAM role they
   * assume (a trailing `*` matches a prefix) or `user/<IAM user>`: `{ "payouts-ci": ["requester"] }`. An IAM
   * caller named nowhere here, and not an operator of the stack's user pool, is refused every route
   * (docs/controls.md, "Roles"). Default: none.
   */
  apiRoles: z._default(ApiRoleGrantsSchema, {}),
  /**
   * Instant settlement (`lib/settlement/config.ts`): where available settlements are paid out to, and the
   * rules. Omit `destination` to leave instant settlement off. Checked with the code's own parser at synth.
   */
  settlement: z._default(
    z.strictObject({
      destination: z.optional(
        z.strictObject({ bankCode: z.string(), accountNumber: z.string(), accountName: z.string() }),
      ),
      minKobo: z.optional(z.int().check(z.nonnegative())),
      keepBackKobo: z.optional(z.int().check(z.nonnegative())),
      /** `HH:MM-HH:MM` on the Lagos clock. */
      allowedHours: z.optional(z.string()),
      categories: z.optional(z.array(z.string()).check(z.minLength(1))),
      /** ISO 8601 instant; settlements created before it are not paid automatically (default: first turned on). */
      since: z.optional(z.string()),
    }),
    {},
  ),
  /**
   * Reconciliation of unknown outcomes (`docs/payout-engine.md`, "Grace period and listing lag"); each unset
   * field keeps the engine's default (`lib/payouts/config.ts`): 10 min, 5 attempts, 48 h.
   */
  reconciliation: z._default(
    z.strictObject({
      /** Absence this long after an attempt proves it absent. Must exceed the provider's listing lag. */
      graceMs: z.optional(z.int().check(z.positive())),
      /** Attempts that may be proved absent before the payout fails. */
      maxAbsentAttempts: z.optional(z.int().check(z.positive(), z.lte(20))),
      /** How long an attempt proved absent is still looked for (a late record is a double payment). */
      watchWindowMs: z.optional(z.int().check(z.positive())),
    }),
    {},
  ),
  /**
   * The ADOT layer (AWS Distro for OpenTelemetry, Node.js, arm64, in the stage's region) the functions that make
   * spans get, and its wrapper: it registers the tracer provider that exports their spans to X-Ray
   * (docs/operations.md, "Traces"). Omitted: no layer, every span a no-op (Lambda's own X-Ray segments stay).
   */
  openTelemetry: z.optional(
    z.strictObject({
      layerArn: z.string().check(z.regex(/^arn:aws[\w-]*:lambda:[a-z0-9-]+:\d{12}:layer:[\w-]+:\d+$/)),
      execWrapper: z._default(z.enum(['/opt/otel-instrument', '/opt/otel-handler']), '/opt/otel-instrument'),
    }),
  ),
  /** How often the provider's settlements are polled (minutes). */
  settlementPollMinutes: z._default(z.int().check(z.positive(), z.lte(1440)), 15),
  /** When the daily statement of the day before runs (`HH:MM`) in `statementTimeZone` (docs/statements.md). */
  statementTime: z._default(z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/)), '06:00'),
  /** The IANA zone whose calendar days the statements cover. */
  statementTimeZone: z._default(z.string().check(z.minLength(1)), 'Africa/Lagos'),
  /** How often the health canary runs the deep health check (minutes); its alarm watches every run. */
  healthCanaryMinutes: z._default(z.int().check(z.positive(), z.lte(60)), 5),
  /** How often provider-side schedules are synchronised (minutes). */
  scheduleSyncMinutes: z._default(z.int().check(z.positive(), z.lte(1440)), 60),
  logRetentionDays: z._default(z.literal(RETENTION_DAYS), 90),
  /** A payout `unknown` (not yet decided by reconciliation) for longer than this raises an alarm. */
  unknownAlarmMinutes: z._default(z.int().check(z.positive(), z.lte(1440)), 30),
  /**
   * Who is told when an instruction waits for a second person or was decided, a payout needs review or was paid
   * twice, a statement mismatched (docs/operations.md, "Notifications"): email subscribers of the notification
   * topic, and a signed webhook (a Slack or Teams workflow) whose URL and key an operator puts in its secret.
   */
  notifications: z._default(
    z.strictObject({
      emails: z._default(z.array(z.email()), []),
      webhook: z._default(z.boolean(), false),
    }),
    { emails: [], webhook: false },
  ),
  /**
   * The finance team's console (docs/console.md), deployed with the API: `signInDomainPrefix` names the pool's
   * sign-in page, `<prefix>.auth.<region>.amazoncognito.com` (unique in the region; default
   * `payouts-<stage>-<account>`); `enabled: false` leaves it out.
   */
  console: z._default(
    z.strictObject({
      enabled: z._default(z.boolean(), true),
      signInDomainPrefix: z.optional(
        z
          .string()
          .check(z.regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'lower-case letters, digits and hyphens')),
      ),
    }),
    { enabled: true },
  ),
  /** Where alarm notifications go; without one the SNS topic has no subscriber until one is added. */
  alarmEmail: z.optional(z.email()),
  /**
   * Caps how many copies of a scheduled handler run at once. Unset by default: reserved concurrency fails
   * to deploy on accounts whose concurrency quota is still the new-account minimum.
   */
  scheduledFunctionConcurrency: z.optional(z.int().check(z.positive(), z.lte(10))),
  /**
   * Submission fan-out (docs/submission.md): the `submit-payouts` workers take `batchSize` messages per
   * invocation (SQS FIFO allows at most 10) and run at most `maxConcurrency` invocations at once (the event
   * source's maximum concurrency; AWS allows 2 to 1000). Payouts in flight at once: their product. Size it to
   * the provider's rate limit: throughput is min(maxConcurrency x batchSize / provider latency, that limit).
   */
  submission: z._default(
    z.strictObject({
      maxConcurrency: z._default(z.int().check(z.gte(2), z.lte(1000)), 10),
      batchSize: z._default(z.int().check(z.gte(1), z.lte(10)), 10),
      /** Deliveries of one message before it goes to the dead-letter queue (which alarms). */
      maxReceiveCount: z._default(z.int().check(z.gte(1), z.lte(1000)), 5),
      /**
       * Most payouts one sweeper tick hands to the queue (`infra/config/submission-sizing.ts`): at least a tick's
       * worth of draining, at most what drains within SQS FIFO's five-minute deduplication window. Default:
       * two ticks' worth at the stage's drain rate.
       */
      maxEnqueuePerTick: z.optional(z.int().check(z.gte(1), z.lte(1_000_000))),
    }),
    { maxConcurrency: 10, batchSize: 10, maxReceiveCount: 5 },
  ),
  /**
   * The provider's rate limit (requests/s) on payouts: the submission workers keep to it fleet-wide (a shared
   * pacer item in the table) and a 429 holds them all back for its Retry-After. Unset: no pacing.
   */
  providerRateLimitPerSecond: z.optional(z.int().check(z.positive(), z.lte(10_000))),
  /**
   * IAM roles allowed to put `merchant.payouts` events (payout and settlement requests) on the bus; the bus
   * policy denies that source to everyone else. Empty: no inbound events are accepted.
   */
  eventProducerRoleArns: z._default(
    z.array(z.string().check(z.regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, 'an IAM role ARN'))),
    [],
  ),
  /** Refuses `cdk destroy` / replacement of the table in CloudFormation. The table is retained either way. */
  deletionProtection: z._default(z.boolean(), true),
});
export type StageConfigInput = z.input<typeof StageConfigSchema>;
export type StageConfig = Readonly<z.infer<typeof StageConfigSchema>>;

export const StageNameSchema = z.string().check(z.regex(/^[a-z][a-z0-9-]{1,15}$/, 'lower-case stage name'));

/** The stack's configuration problem, with every offending field named. */
export class StageConfigError extends Error {
  override readonly name = 'StageConfigError';
  readonly code = 'STAGE_CONFIG_INVALID';
}

/**
 * Validates the configuration of one stage.
 *
 * @example parseStageConfig('dev', app.node.tryGetContext('stages')?.dev)
 */
export function parseStageConfig(stage: string, input: unknown): StageConfig {
  if (!StageNameSchema.safeParse(stage).success) {
    throw new StageConfigError(`invalid stage name "${stage}": use lower-case letters, digits and dashes`);
  }
  if (input === undefined) {
    throw new StageConfigError(
      `no configuration for stage "${stage}": add it under context.stages in cdk.json`,
    );
  }
  const result = StageConfigSchema.safeParse(input);
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new StageConfigError(`invalid configuration for stage "${stage}": ${issues.join('; ')}`);
  }
  if (result.data.approvalThresholdKobo > result.data.maxPayoutKobo) {
    // A threshold above the maximum would mean no payout ever needs a second approver.
    throw new StageConfigError(
      `invalid configuration for stage "${stage}": approvalThresholdKobo exceeds maxPayoutKobo`,
    );
  }
  const second = result.data.secondApprovalThresholdKobo;
  if (second !== undefined && second < result.data.approvalThresholdKobo) {
    // Below the first threshold it would ask two approvals of what needs none.
    throw new StageConfigError(
      `invalid configuration for stage "${stage}": secondApprovalThresholdKobo is below approvalThresholdKobo`,
    );
  }
  const {
    graceMs = defaultEngineConfig.reconcileGraceMs,
    watchWindowMs = defaultEngineConfig.watchWindowMs,
  } = result.data.reconciliation;
  if (watchWindowMs <= graceMs) {
    throw new StageConfigError(
      `invalid configuration for stage "${stage}": reconciliation.watchWindowMs must be longer than reconciliation.graceMs`,
    );
  }
  try {
    settlementPolicyFromEnv(settlementEnvironment(result.data));
  } catch (error) {
    throw new StageConfigError(
      `invalid configuration for stage "${stage}": settlement: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return result.data;
}

/** The reconciliation block as the environment variables `lib/runtime/runtime-config.ts` reads. */
export function reconciliationEnvironment(
  config: Pick<StageConfig, 'reconciliation'>,
): Record<string, string> {
  const { graceMs, maxAbsentAttempts, watchWindowMs } = config.reconciliation;
  const entries: [string, number | undefined][] = [
    ['RECONCILE_GRACE_MS', graceMs],
    ['MAX_ABSENT_ATTEMPTS', maxAbsentAttempts],
    ['WATCH_WINDOW_MS', watchWindowMs],
  ];
  return Object.fromEntries(
    entries.flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
  );
}

/** The settlement block as the environment variables `settlementPolicyFromEnv` reads. */
export function settlementEnvironment(config: Pick<StageConfig, 'settlement'>): Record<string, string> {
  const { destination, minKobo, keepBackKobo, allowedHours, categories, since } = config.settlement;
  const entries: [string, string | undefined][] = [
    ['SETTLEMENT_DESTINATION_BANK_CODE', destination?.bankCode],
    ['SETTLEMENT_DESTINATION_ACCOUNT_NUMBER', destination?.accountNumber],
    ['SETTLEMENT_DESTINATION_ACCOUNT_NAME', destination?.accountName],
    ['SETTLEMENT_MIN_KOBO', minKobo === undefined ? undefined : String(minKobo)],
    ['SETTLEMENT_KEEP_BACK_KOBO', keepBackKobo === undefined ? undefined : String(keepBackKobo)],
    ['SETTLEMENT_ALLOWED_HOURS', allowedHours],
    ['SETTLEMENT_CATEGORIES', categories?.join(',')],
    ['SETTLEMENT_SINCE', since],
  ];
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined));
}
