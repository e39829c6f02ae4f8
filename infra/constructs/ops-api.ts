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
  /** The function that serves it: a key of `functions`. */
  readonly functionName: string;
}

export interface OpsApiProps {
  readonly stage: string;
  /** The API's functions by name (lib/api/functions/index.ts). */
  readonly functions: ReadonlyMap<string, IFunction>;
  /** Every route with the function that serves it (`apiRouteTable()` of lib/api/functions), declared one by one. */
  readonly routes: readonly ApiRouteSpec[];
  /** The function that answers a request no route declares (the `$default` route): the API's 404 problem. */
  readonly fallback: string;
  readonly logRetention: RetentionDays;
}

/**
 * The ops HTTP API: every route requires SigV4 (IAM authorisation) and goes to the one Lambda function that
 * serves it; another method of a known path goes to that path's function (`ANY`), which answers 405; a request
 * for an unknown path goes to the fallback function (`$default`), which answers the API's 404 problem. Each
 * request is written to an access log in JSON.
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
    // One invoke permission per function, for this API (`<api>/*/*/*`), not one per route: 133 routes made 136
    // permissions, a quarter of CloudFormation's 500 resources a stack may hold. A function answers only its own
    // routes (404/405 otherwise), and API Gateway sends it only those.
    const integrations = new Map(
      [...props.functions].map(([name, fn]) => [
        name,
        new HttpLambdaIntegration(`${name}-integration`, fn, { scopePermissionToRoute: false }),
      ]),
    );
    const integrationOf = (name: string) => {
      const integration = integrations.get(name);
      if (!integration) throw new Error(`no function ${name} for the ops API`);
      return integration;
    };
    this.api = new HttpApi(this, 'Api', {
      apiName: `payouts-ops-${props.stage}`,
      description: 'Payout operations API (IAM-authorised)',
      defaultAuthorizer: new HttpIamAuthorizer(),
      // The $default route, authorised like every other (with the fallback deployed).
      ...(integrations.has(props.fallback) && { defaultIntegration: integrationOf(props.fallback) }),
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
    for (const route of props.routes) {
      this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationOf(route.functionName),
      });
    }
    // Every other method of a known path goes to the function serving that path (API Gateway prefers the route
    // with the method), whose router answers 405 with `Allow`, as the local server does. So each path is one
    // function's: the route table is refused otherwise.
    const pathOwners = new Map<string, string>();
    for (const route of props.routes) {
      const owner = pathOwners.get(route.path) ?? route.functionName;
      if (owner !== route.functionName) {
        throw new Error(
          `${route.path} is served by ${owner} and ${route.functionName}: a path is one function's`,
        );
      }
      pathOwners.set(route.path, owner);
    }
    for (const [path, owner] of pathOwners) {
      this.api.addRoutes({ path, methods: [HttpMethod.ANY], integration: integrationOf(owner) });
    }
  }
}
