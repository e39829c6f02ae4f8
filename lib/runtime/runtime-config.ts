import { IDENTITY_ENV } from '../operators/index.js';
import { defaultEngineConfig } from '../payouts/index.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../provider/index.js';
import { errorKind } from '../shared/errors.js';
import { jsonText } from '../shared/json-text.js';
import { describeIssues, fieldIssues } from '../shared/validation.js';
import * as z from '../shared/zod.js';

// One instance per kind of variable, shared by the variables of that kind: every cold start builds this schema
// and parses the environment with it, and each instance is built (zod's constructors run) once.
/** A whole number above zero: kobo, milliseconds, a count, a rate. */
const positiveWhole = z.optional(z.coerce.number().check(z.int(), z.positive()));
const kobo = positiveWhole;
const milliseconds = positiveWhole;
const count = positiveWhole;
const nonEmptyText = z.optional(z.string().check(z.minLength(1)));
const optionalUrl = z.optional(z.url());
const optionalText = z.optional(z.string());

/**
 * Per-approver limits (docs/controls.md, "Approver limits and two approvers"): `defaultKobo` for every approver,
 * `byApprover` by the principal id as recorded (`person/cognito:<sub>`, a local name), compared as identities.
 */
export const ApproverLimitsSchema = z.strictObject({
  defaultKobo: z.optional(z.int().check(z.positive())),
  byApprover: z.optional(z.record(z.string().check(z.minLength(1)), z.int().check(z.positive()))),
});

/**
 * Configuration read from the environment, validated once at start-up so a handler fails fast at init
 * with the variable named, instead of mid-payout.
 */
export const RuntimeEnvSchema = z
  .object({
    TABLE_NAME: z.string().check(z.minLength(1)),
    PROVIDER_BASE_URL: z.url(),
    /**
     * AWS mode: Secrets Manager secret (ARN or name) holding `{ "token": "..." }`; set on every function that calls
     * the provider (infra/handlers.ts `provider`), and only on those.
     */
    PROVIDER_TOKEN_SECRET_ID: nonEmptyText,
    /**
     * AWS mode: the secret holding `{ "pin": "..." }`, encrypted with its own KMS key. Set only on the functions
     * that send money (infra/handlers.ts `sendsMoney`); without it the function never reads a PIN.
     */
    PROVIDER_PIN_SECRET_ID: nonEmptyText,
    /** Local mode only: the credentials themselves. */
    PROVIDER_TOKEN: nonEmptyText,
    PROVIDER_PIN: nonEmptyText,
    PROVIDER_TIMEOUT_MS: milliseconds,
    DYNAMODB_ENDPOINT: optionalUrl,
    AWS_REGION: optionalText,
    /** Set by Lambda: its presence is what makes the runtime run in AWS mode. */
    AWS_LAMBDA_FUNCTION_NAME: optionalText,
    MAX_PAYOUT_KOBO: kobo,
    /** The provider's id of the merchant's main wallet; the daily cap counts per account debited. */
    MAIN_WALLET_ID: nonEmptyText,
    DAILY_CAP_KOBO: kobo,
    /** When the daily statement of the day before runs (`HH:MM`, 24 h) in STATEMENT_TIME_ZONE (docs/statements.md). */
    STATEMENT_TIME: z._default(
      z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day, HH:MM')),
      '06:00',
    ),
    /** The IANA zone whose calendar days the statements cover: the provider's business day. */
    STATEMENT_TIME_ZONE: z._default(
      z.string().check(
        z.refine((zone) => {
          try {
            new Intl.DateTimeFormat('en-US', { timeZone: zone });
            return true;
          } catch {
            return false;
          }
        }, 'must be an IANA time zone, e.g. Africa/Lagos'),
      ),
      'Africa/Lagos',
    ),
    APPROVAL_THRESHOLD_KOBO: kobo,
    /** At or above it an instruction waits for two approvals by two persons; unset: one. */
    SECOND_APPROVAL_THRESHOLD_KOBO: kobo,
    /** Per-approver limits, JSON: `{"defaultKobo":…,"byApprover":{"person/cognito:<sub>":…}}`; unset: none. */
    APPROVER_LIMITS: z.optional(z.pipe(jsonText(), ApproverLimitsSchema)),
    SUBMIT_LEASE_MS: milliseconds,
    RECONCILE_GRACE_MS: milliseconds,
    RECONCILE_INTERVAL_MS: milliseconds,
    /** Attempts that may be proved absent before a payout fails (each is followed by a new one until then). */
    MAX_ABSENT_ATTEMPTS: count,
    /** How long an attempt proved absent is still watched for a late provider record. */
    WATCH_WINDOW_MS: milliseconds,
    RETRY_BASE_MS: milliseconds,
    MAX_LATENESS_MS: milliseconds,
    // Who a caller of the ops API is and what they may do (lib/operators/roles.ts).
    ...IDENTITY_ENV,
    /** The submission queue (SQS, FIFO): set for the sweeper, which then enqueues instead of submitting. */
    SUBMIT_QUEUE_URL: optionalUrl,
    /** The provider's rate limit (requests/s) the submission workers keep to, fleet-wide; none when unset. */
    PROVIDER_RATE_LIMIT_PER_SECOND: count,
    /** Most payouts one sweeper tick hands to the submission queue (infra/config/submission-sizing.ts). */
    SUBMIT_MAX_ENQUEUE_PER_TICK: count,
    /** Rows of payout runs one sweeper tick turns into payouts (infra/config/submission-sizing.ts). */
    RUN_ROWS_PER_TICK: count,
    /** Local mode only: where the queue's stand-in answers (`npm start`); AWS mode uses the queue URL's origin. */
    SQS_ENDPOINT: optionalUrl,
    /**
     * The operators' user pool the admin routes manage (`/operators`): set by the stack on the one function that
     * serves them (infra/handlers.ts `managesOperators`); unset, those routes answer 503 `not-configured`.
     */
    OPS_OPERATOR_USER_POOL_ID: nonEmptyText,
    /** Local mode only: where the user pool answers (cognito-local); AWS mode uses the region's endpoint. */
    COGNITO_ENDPOINT: optionalUrl,
  })
  .check(
    z.refine((env) => !env.PROVIDER_PIN_SECRET_ID || Boolean(env.PROVIDER_TOKEN_SECRET_ID), {
      message: 'PROVIDER_PIN_SECRET_ID needs PROVIDER_TOKEN_SECRET_ID (the two secrets are read together)',
      path: ['PROVIDER_PIN_SECRET_ID'],
    }),
    // In Lambda the token and PIN come from Secrets Manager only, never from the environment.
    z.refine((env) => !env.AWS_LAMBDA_FUNCTION_NAME || (!env.PROVIDER_TOKEN && !env.PROVIDER_PIN), {
      message:
        'in Lambda, the token and PIN come from their secrets (PROVIDER_TOKEN_SECRET_ID): do not set PROVIDER_TOKEN or PROVIDER_PIN',
      path: ['PROVIDER_TOKEN_SECRET_ID'],
    }),
    // Local mode (`npm start`, tests, benches) talks only to this machine: a real provider's URL next to a real
    // token and PIN would move real money from a laptop, and a missing DynamoDB endpoint would write to AWS.
    z.refine((env) => Boolean(env.AWS_LAMBDA_FUNCTION_NAME) || isLoopbackUrl(env.PROVIDER_BASE_URL), {
      message:
        'in local mode must be a loopback URL (127.0.0.1, localhost or [::1]): local mode never calls a real provider',
      path: ['PROVIDER_BASE_URL'],
    }),
    z.refine(
      (env) =>
        Boolean(env.AWS_LAMBDA_FUNCTION_NAME) ||
        (env.DYNAMODB_ENDPOINT !== undefined && isLoopbackUrl(env.DYNAMODB_ENDPOINT)),
      {
        message: 'in local mode must be set to a loopback URL (DynamoDB Local), never AWS',
        path: ['DYNAMODB_ENDPOINT'],
      },
    ),
    // Local mode manages only a user pool on this machine (cognito-local), never one in AWS.
    z.refine(
      (env) =>
        Boolean(env.AWS_LAMBDA_FUNCTION_NAME) ||
        env.OPS_OPERATOR_USER_POOL_ID === undefined ||
        (env.COGNITO_ENDPOINT !== undefined && isLoopbackUrl(env.COGNITO_ENDPOINT)),
      {
        message:
          'in local mode OPS_OPERATOR_USER_POOL_ID needs COGNITO_ENDPOINT, a loopback URL (cognito-local)',
        path: ['COGNITO_ENDPOINT'],
      },
    ),
    // The sweeper claims a payout while the previous provider call is still running, so a claim may wait one
    // call before its own: a lease shorter than two calls could expire on a payout that is about to be sent.
    z.refine(
      (env) =>
        (env.SUBMIT_LEASE_MS ?? defaultEngineConfig.submitLeaseMs) >
        2 * (env.PROVIDER_TIMEOUT_MS ?? DEFAULT_REQUEST_TIMEOUT_MS),
      {
        message:
          'must be more than twice PROVIDER_TIMEOUT_MS (a claim may wait one provider call before its own)',
        path: ['SUBMIT_LEASE_MS'],
      },
    ),
    // An attempt is proved absent only after the grace period; watching it for less would stop looking before
    // a record the grace period allowed for could show up.
    z.refine(
      (env) =>
        (env.WATCH_WINDOW_MS ?? defaultEngineConfig.watchWindowMs) >
        (env.RECONCILE_GRACE_MS ?? defaultEngineConfig.reconcileGraceMs),
      { message: 'must be longer than RECONCILE_GRACE_MS', path: ['WATCH_WINDOW_MS'] },
    ),
  );
export type RuntimeEnv = z.infer<typeof RuntimeEnvSchema>;

/** True for an http(s) URL whose host is this machine (127.0.0.0/8, localhost, [::1]). */
export function isLoopbackUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  const host = parsed.hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The environment is missing or has a wrong variable. */
export class ConfigurationError extends /* @__PURE__ */ errorKind(
  'ConfigurationError',
  'CONFIGURATION_INVALID',
) {}

export function parseRuntimeEnv(env: Record<string, string | undefined>): RuntimeEnv {
  const result = RuntimeEnvSchema.safeParse(env);
  if (!result.success) {
    throw new ConfigurationError(`invalid configuration: ${describeIssues(fieldIssues(result.error))}`);
  }
  return result.data;
}
