import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import {
  DeliveryMarkers,
  type NotificationChannel,
  SnsTopicChannel,
  WebhookChannel,
  type WebhookTarget,
} from '../notifications/index.js';
import { createSecretsManagerClient, type SecretsManagerLike } from '../provider/index.js';
import { type AwsCallObserver, observeAwsCalls } from '../shared/aws-call-observer.js';
import { createDynamoDbClient } from '../shared/dynamodb-client.js';
import { lambdaLogger } from '../shared/lambda-logger.js';
import { localAwsConfig } from '../shared/local-aws-config.js';
import { jsonConsoleLogger, type Logger } from '../shared/logger.js';
import * as z from '../shared/zod.js';

/** What the notifier (`notify-approvers`) is made of: its delivery markers, its channels, a logger. */
export interface NotifierRuntime {
  readonly markers: DeliveryMarkers;
  readonly channels: readonly NotificationChannel[];
  readonly logger: Logger;
  close(): void;
}

export interface NotifierOverrides {
  readonly logger?: Logger;
  readonly secretsManager?: SecretsManagerLike;
  readonly awsCalls?: { readonly functionName: string; readonly observer: AwsCallObserver };
}

/** The webhook secret: JSON `{ "url": "https://...", "signingKey": "..." }` (a workflow's URL is itself a credential). */
const WebhookSecretSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  signingKey: z.string().check(z.minLength(16)),
});
const SECRET_TTL_MS = 5 * 60_000;

/**
 * Builds the notifier from its variables: TABLE_NAME (the markers); NOTIFY_TOPIC_ARN (SNS, on SNS_ENDPOINT when
 * set: `npm start`'s stand-in); the webhook from NOTIFY_WEBHOOK_SECRET_ID (AWS: read from Secrets Manager like the
 * provider's token, cached five minutes) or NOTIFY_WEBHOOK_URL with NOTIFY_WEBHOOK_SIGNING_KEY (`npm start`).
 * Neither channel configured: nothing is sent, and each event is logged.
 */
export function notifierFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  overrides: NotifierOverrides = {},
): NotifierRuntime {
  const tableName = env.TABLE_NAME;
  if (!tableName) throw new Error('TABLE_NAME is not set');
  const mode = env.AWS_LAMBDA_FUNCTION_NAME ? 'aws' : 'local';
  const logger =
    overrides.logger ??
    (mode === 'aws'
      ? lambdaLogger({ service: 'payouts-notify' })
      : jsonConsoleLogger({ service: 'payouts-notify' }));
  const region = env.AWS_REGION ?? localAwsConfig.region;
  const credentials = mode === 'aws' ? defaultProvider() : localAwsConfig.credentials;
  const dynamoDb = createDynamoDbClient(
    env.DYNAMODB_ENDPOINT ? { endpoint: env.DYNAMODB_ENDPOINT, ...localAwsConfig, region } : {},
  );
  if (overrides.awsCalls)
    observeAwsCalls(dynamoDb, overrides.awsCalls.functionName, overrides.awsCalls.observer);
  const channels: NotificationChannel[] = [];
  if (env.NOTIFY_TOPIC_ARN) {
    channels.push(
      new SnsTopicChannel({
        topicArn: env.NOTIFY_TOPIC_ARN,
        region,
        credentials,
        ...(env.SNS_ENDPOINT && { endpoint: env.SNS_ENDPOINT }),
      }),
    );
  }
  const webhook = webhookTargetOf(env, overrides);
  if (webhook) channels.push(new WebhookChannel(webhook));
  return {
    markers: new DeliveryMarkers(dynamoDb, tableName),
    channels,
    logger,
    close: () => dynamoDb.destroy(),
  };
}

function webhookTargetOf(
  env: Readonly<Record<string, string | undefined>>,
  overrides: NotifierOverrides,
): (() => Promise<WebhookTarget>) | undefined {
  if (env.NOTIFY_WEBHOOK_URL && env.NOTIFY_WEBHOOK_SIGNING_KEY) {
    const target = WebhookSecretSchema.parse({
      url: env.NOTIFY_WEBHOOK_URL,
      signingKey: env.NOTIFY_WEBHOOK_SIGNING_KEY,
    });
    return async () => target;
  }
  const secretId = env.NOTIFY_WEBHOOK_SECRET_ID;
  if (!secretId) return undefined;
  const client = overrides.secretsManager ?? createSecretsManagerClient();
  let cached: { target: WebhookTarget; until: number } | undefined;
  return async () => {
    if (cached && cached.until > Date.now()) return cached.target;
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    let json: unknown;
    try {
      json = JSON.parse(SecretString ?? '');
    } catch {
      // Never the text: it is the secret.
      throw new Error('the notification webhook secret is not JSON');
    }
    const parsed = WebhookSecretSchema.safeParse(json);
    if (!parsed.success)
      throw new Error('the notification webhook secret must be { "url", "signingKey" (16+ characters) }');
    cached = { target: parsed.data, until: Date.now() + SECRET_TTL_MS };
    return parsed.data;
  };
}

let cached: NotifierRuntime | undefined;

/** The container's notifier, built on first use from process.env. */
export function notifierFromProcessEnv(): NotifierRuntime {
  cached ??= notifierFromEnv(process.env);
  return cached;
}
