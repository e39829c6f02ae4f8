import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface ApiRouteSpec {
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly path: string;
}

export interface OpsApiProps {
  readonly stage: string;
  readonly handler: IFunction;
  /** The routes the handler serves (`apiRoutes` of `lib/api`), declared one by one so unknown paths never reach Lambda. */
  readonly routes: readonly ApiRouteSpec[];
  readonly logRetention: RetentionDays;
}

/**
 * The ops HTTP API: every route requires SigV4 (IAM authorisation), one Lambda integration serves them all,
 * and each request is written to an access log in JSON.
 */
export class OpsApi extends Construct {
  readonly api: HttpApi;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: OpsApiProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new HttpApi(this, 'Api', {
      apiName: `payouts-ops-${props.stage}`,
      description: 'Payout operations API (IAM-authorised)',
      defaultAuthorizer: new HttpIamAuthorizer(),
      createDefaultStage: false,
    });
    this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: 50, burstLimit: 100 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            caller: '$context.identity.caller',
            user: '$context.identity.userArn',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latency: '$context.responseLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
    const integration = new HttpLambdaIntegration('Handler', props.handler);
    for (const route of props.routes) {
      this.api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
    }
  }
}
