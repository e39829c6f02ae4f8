import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { CognitoDirectory, DynamoDbOperatorStore, OperatorService } from '../operators/index.js';
import { observeAwsCalls } from '../shared/aws-call-observer.js';
import { localAwsConfig } from '../shared/local-aws-config.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The user pool the admin routes manage: its id, and locally where cognito-local answers. */
export interface OperatorPoolSettings {
  readonly userPoolId: string;
  /** Local mode only (cognito-local); in AWS the region's Cognito endpoint. */
  readonly endpoint?: string;
}

/**
 * The operators' service on the runtime: the pool of `pool` (`npm start` and the tests pass cognito-local's) or
 * of OPS_OPERATOR_USER_POOL_ID and COGNITO_ENDPOINT; undefined when neither names one (the routes answer 503).
 * Built once per runtime; only the function serving `/operators` asks for it, so no other carries the Cognito
 * client.
 */
export function operatorsOf(runtime: Runtime, pool?: OperatorPoolSettings): OperatorService | undefined {
  const settings =
    pool ??
    (runtime.env.OPS_OPERATOR_USER_POOL_ID !== undefined
      ? {
          userPoolId: runtime.env.OPS_OPERATOR_USER_POOL_ID,
          ...(runtime.env.COGNITO_ENDPOINT !== undefined && { endpoint: runtime.env.COGNITO_ENDPOINT }),
        }
      : undefined);
  if (!settings) return undefined;
  return once(runtime, `operators:${settings.userPoolId}`, () => {
    const client = new CognitoIdentityProviderClient(
      settings.endpoint !== undefined
        ? {
            endpoint: settings.endpoint,
            ...localAwsConfig,
            region: runtime.env.AWS_REGION ?? localAwsConfig.region,
          }
        : {},
    );
    const { awsCalls } = runtime.overrides;
    if (awsCalls) observeAwsCalls(client, awsCalls.functionName, awsCalls.observer);
    runtime.onClose(() => client.destroy());
    return new OperatorService(
      new CognitoDirectory(client, settings.userPoolId),
      new DynamoDbOperatorStore(runtime.dynamoDb, runtime.tableName),
      runtime.payouts.ctx.clock,
    );
  });
}
