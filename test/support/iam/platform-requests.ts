import type { IamRequest } from './iam-requests.js';
import type { Statement } from './stack-policies.js';
import { type CfnTemplate, TEST_ACCOUNT, TEST_REGION, type TemplateResolver } from './template-resolver.js';

/**
 * A call AWS makes on the stack's behalf rather than the handler's code: with a function's role (its
 * on-failure destination, its stream event source mapping, active tracing), with another role (a schedule's
 * target role), or as a service principal checked against a resource policy (an EventBridge rule invoking
 * its target or filling its DLQ, API Gateway invoking the API function).
 */
export interface PlatformRequest {
  readonly what: string;
  /** The function whose role makes the call, when it is a function's role. */
  readonly functionLogicalId?: string;
  /** A role of the template (logical id) that makes the call. */
  readonly roleLogicalId?: string;
  /** A service principal that makes the call (`events.amazonaws.com`). */
  readonly servicePrincipal?: string;
  readonly request: IamRequest;
}

type Props = Record<string, unknown>;
const getAttId = (value: unknown) => String((value as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]);
const refId = (value: unknown) => String((value as { Ref: string }).Ref);
/** Every request reaches SQS over TLS; the DLQs deny anything else. */
const TLS = { 'aws:SecureTransport': 'true' };

export function platformRequests(template: CfnTemplate, r: TemplateResolver): PlatformRequest[] {
  const requests: PlatformRequest[] = [];
  const resources = Object.entries(template.Resources);
  const functionIdOf = (reference: unknown) =>
    typeof reference === 'object' && reference !== null && 'Ref' in reference
      ? refId(reference)
      : getAttId(reference);
  for (const [id, resource] of resources) {
    const p: Props = resource.Properties ?? {};
    switch (resource.Type) {
      case 'AWS::Lambda::Function':
        if ((p.TracingConfig as { Mode?: string } | undefined)?.Mode === 'Active') {
          for (const action of ['xray:PutTraceSegments', 'xray:PutTelemetryRecords']) {
            requests.push({
              what: 'active tracing',
              functionLogicalId: id,
              request: { action, resource: '*', context: {} },
            });
          }
        }
        break;
      case 'AWS::Lambda::EventInvokeConfig': {
        const destination = (p.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)
          ?.OnFailure?.Destination;
        if (destination !== undefined) {
          requests.push({
            what: 'asynchronous invocation on-failure destination',
            functionLogicalId: functionIdOf(p.FunctionName),
            request: { action: 'sqs:SendMessage', resource: r.string(destination), context: TLS },
          });
        }
        break;
      }
      case 'AWS::Lambda::EventSourceMapping': {
        const functionLogicalId = functionIdOf(p.FunctionName);
        const stream = r.string(p.EventSourceArn);
        if (stream.startsWith('arn:aws:sqs:')) {
          // An SQS event source: Lambda polls the queue with the function's role and deletes what it processed.
          for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) {
            requests.push({
              what: 'queue event source mapping',
              functionLogicalId,
              request: { action, resource: stream, context: TLS },
            });
          }
          break;
        }
        for (const action of [
          'dynamodb:DescribeStream',
          'dynamodb:GetRecords',
          'dynamodb:GetShardIterator',
        ]) {
          requests.push({
            what: 'stream event source mapping',
            functionLogicalId,
            request: { action, resource: stream, context: {} },
          });
        }
        requests.push({
          what: 'stream event source mapping',
          functionLogicalId,
          request: { action: 'dynamodb:ListStreams', resource: '*', context: {} },
        });
        const destination = (p.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)
          ?.OnFailure?.Destination;
        if (destination !== undefined) {
          requests.push({
            what: 'stream event source mapping on-failure destination',
            functionLogicalId,
            request: { action: 'sqs:SendMessage', resource: r.string(destination), context: TLS },
          });
        }
        break;
      }
      case 'AWS::Scheduler::Schedule': {
        const target = p.Target as { Arn: unknown; RoleArn: unknown; DeadLetterConfig?: { Arn: unknown } };
        const roleLogicalId = getAttId(target.RoleArn);
        requests.push({
          what: `schedule ${id} invoking its target`,
          roleLogicalId,
          request: { action: 'lambda:InvokeFunction', resource: r.string(target.Arn), context: {} },
        });
        if (target.DeadLetterConfig) {
          requests.push({
            what: `schedule ${id} filling its DLQ`,
            roleLogicalId,
            request: {
              action: 'sqs:SendMessage',
              resource: r.string(target.DeadLetterConfig.Arn),
              context: TLS,
            },
          });
        }
        break;
      }
      case 'AWS::Events::Rule': {
        const ruleArn = r.getAtt(id, 'Arn');
        for (const target of (p.Targets as { Arn: unknown; DeadLetterConfig?: { Arn: unknown } }[]) ?? []) {
          const context = { 'aws:SourceArn': ruleArn, 'aws:SourceAccount': TEST_ACCOUNT };
          requests.push({
            what: `rule ${id} invoking its target`,
            servicePrincipal: 'events.amazonaws.com',
            request: { action: 'lambda:InvokeFunction', resource: r.string(target.Arn), context },
          });
          if (target.DeadLetterConfig) {
            requests.push({
              what: `rule ${id} filling its DLQ`,
              servicePrincipal: 'events.amazonaws.com',
              request: {
                action: 'sqs:SendMessage',
                resource: r.string(target.DeadLetterConfig.Arn),
                context: { ...context, ...TLS },
              },
            });
          }
        }
        break;
      }
      case 'AWS::ApiGatewayV2::Route': {
        const routeKey = String(p.RouteKey);
        // `$default` takes every request no route declares: such a request's source ARN names its own method and path.
        const [method, path] = routeKey === '$default' ? ['GET', '/no-such-route'] : routeKey.split(' ');
        const api = r.ref(refId(p.ApiId));
        // The route's target, `integrations/<Ref of the integration>`: the integration whose function it invokes.
        const target = JSON.stringify(p.Target);
        const integration = resources.find(
          ([id, candidate]) =>
            candidate.Type === 'AWS::ApiGatewayV2::Integration' && target.includes(`{"Ref":"${id}"}`),
        );
        if (!integration) throw new Error(`route ${routeKey} targets no integration in the template`);
        const fn = integration[1].Properties?.IntegrationUri;
        requests.push({
          what: `API route ${routeKey}`,
          servicePrincipal: 'apigateway.amazonaws.com',
          request: {
            action: 'lambda:InvokeFunction',
            resource: r.string(fn),
            context: {
              'aws:SourceArn': `arn:aws:execute-api:${TEST_REGION}:${TEST_ACCOUNT}:${api}/$default/${method}${path}`,
              'aws:SourceAccount': TEST_ACCOUNT,
            },
          },
        });
        break;
      }
    }
  }
  return requests;
}

/** A function's resource policy, as AWS assembles it from the template's Lambda permissions. */
export function lambdaResourcePolicies(template: CfnTemplate, r: TemplateResolver): Map<string, Statement[]> {
  const policies = new Map<string, Statement[]>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Permission') continue;
    const p: Props = resource.Properties ?? {};
    const functionArn = r.string(p.FunctionName);
    const statement: Statement = {
      Sid: id,
      Effect: 'Allow',
      Principal: { Service: String(p.Principal) },
      Action: String(p.Action),
      Resource: functionArn,
      ...(p.SourceArn !== undefined && {
        Condition: { ArnLike: { 'aws:SourceArn': r.string(p.SourceArn) } },
      }),
    };
    policies.set(functionArn, [...(policies.get(functionArn) ?? []), statement]);
  }
  return policies;
}
