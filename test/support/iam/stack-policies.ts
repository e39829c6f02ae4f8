import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { IamRequest } from './iam-requests.js';
import { lambdaResourcePolicies, type PlatformRequest } from './platform-requests.js';
import { type CfnTemplate, TEST_ACCOUNT, TemplateResolver } from './template-resolver.js';

type PolicyDocument = { Version: string; Statement: Statement[] };
export type Statement = {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: string | string[];
  Principal?: unknown;
  Condition?: Record<string, Record<string, string | string[]>>;
};

/** A Lambda function's identity as the template defines it: role, the role's policies, environment. */
export interface FunctionIdentity {
  readonly logicalId: string;
  readonly roleArn: string;
  readonly identityPolicies: readonly { name: string; policy: PolicyDocument }[];
  readonly environment: Readonly<Record<string, string>>;
}

export interface Decision {
  readonly allowed: boolean;
  readonly result: string;
}

const asList = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/**
 * Every policy of a synthesized stack, resolved to concrete ARNs: each function's role and identity policies,
 * and the resource policies AWS also evaluates (event bus, secret, KMS key, queue). `evaluate` answers as
 * IAM would, with `@cloud-copilot/iam-simulate`: identity policy plus the resource's policy, any explicit Deny
 * winning.
 */
export class StackPolicies {
  readonly #resolver: TemplateResolver;
  readonly #resourcePolicies = new Map<string, PolicyDocument>();
  readonly functions = new Map<string, FunctionIdentity>();
  /** Secret ARN -> its customer-managed key ARN. */
  readonly secretKeys = new Map<string, string>();

  constructor(template: CfnTemplate) {
    this.#resolver = new TemplateResolver(template);
    const r = this.#resolver;
    const resources = Object.entries(template.Resources);
    for (const [id, resource] of resources) {
      const p = resource.Properties ?? {};
      switch (resource.Type) {
        case 'AWS::Events::EventBusPolicy':
          this.#addResourceStatement(
            r.getAtt(String((p.EventBusName as { Ref: string }).Ref), 'Arn'),
            r.resolve(p.Statement) as Statement,
          );
          break;
        case 'AWS::SecretsManager::ResourcePolicy':
          this.#setResourcePolicy(r.string(p.SecretId), r.resolve(p.ResourcePolicy) as PolicyDocument);
          break;
        case 'AWS::KMS::Key':
          this.#setResourcePolicy(r.getAtt(id, 'Arn'), r.resolve(p.KeyPolicy) as PolicyDocument);
          break;
        case 'AWS::SQS::QueuePolicy':
          for (const queue of asList(p.Queues)) {
            const queueId = String((queue as { Ref: string }).Ref);
            this.#setResourcePolicy(r.getAtt(queueId, 'Arn'), r.resolve(p.PolicyDocument) as PolicyDocument);
          }
          break;
        case 'AWS::SecretsManager::Secret':
          if (p.KmsKeyId !== undefined) this.secretKeys.set(r.ref(id), r.string(p.KmsKeyId));
          break;
      }
    }
    for (const [functionArn, statements] of lambdaResourcePolicies(template, r)) {
      this.#setResourcePolicy(functionArn, { Version: '2012-10-17', Statement: statements });
    }
    for (const [id, resource] of resources) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const p = resource.Properties ?? {};
      const roleId = String(((p.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'] ?? [])[0]);
      const variables =
        (p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      this.functions.set(id, {
        logicalId: id,
        ...this.roleIdentity(roleId),
        environment: Object.fromEntries(
          Object.entries(variables).map(([key, value]) => [key, r.string(value)]),
        ),
      });
    }
  }

  /** A role of the template: its ARN and the policies attached to it. */
  roleIdentity(roleLogicalId: string): Pick<FunctionIdentity, 'roleArn' | 'identityPolicies'> {
    const r = this.#resolver;
    const identityPolicies = Object.entries(r.template.Resources)
      .filter(
        ([, candidate]) =>
          candidate.Type === 'AWS::IAM::Policy' &&
          asList(candidate.Properties?.Roles).some(
            (role) => (role as { Ref?: string }).Ref === roleLogicalId,
          ),
      )
      .map(([policyId, policy]) => ({
        name: policyId,
        policy: r.resolve(policy.Properties?.PolicyDocument) as PolicyDocument,
      }));
    return { roleArn: r.getAtt(roleLogicalId, 'Arn'), identityPolicies };
  }

  /** A call AWS makes for the stack (see platform-requests.ts), decided like any other. */
  async evaluatePlatform(platform: PlatformRequest): Promise<Decision> {
    if (platform.servicePrincipal) {
      return this.evaluate({ roleArn: platform.servicePrincipal, identityPolicies: [] }, platform.request);
    }
    const identity = platform.functionLogicalId
      ? this.functions.get(platform.functionLogicalId)
      : platform.roleLogicalId
        ? this.roleIdentity(platform.roleLogicalId)
        : undefined;
    if (!identity) throw new Error(`no principal for ${platform.what}`);
    return this.evaluate(identity, platform.request);
  }

  get resolver(): TemplateResolver {
    return this.#resolver;
  }

  resourcePolicyOf(resourceArn: string): PolicyDocument | undefined {
    return this.#resourcePolicies.get(resourceArn);
  }

  /** Whether `principal` may make `request`, as IAM decides it for a principal of the stack's account. */
  async evaluate(
    identity: Pick<FunctionIdentity, 'roleArn' | 'identityPolicies'>,
    request: IamRequest,
  ): Promise<Decision> {
    const resourcePolicy = this.#resourcePolicies.get(request.resource);
    const result = await runSimulation(
      {
        identityPolicies: identity.identityPolicies.map(({ name, policy }) => ({ name, policy })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy && { resourcePolicy }),
        request: {
          action: request.action,
          resource: { resource: request.resource, accountId: TEST_ACCOUNT },
          principal: identity.roleArn,
          contextVariables: {
            ...(identity.roleArn.startsWith('arn:') && { 'aws:PrincipalArn': identity.roleArn }),
            ...request.context,
          },
        },
      },
      {},
    );
    if (result.resultType === 'error') return { allowed: false, result: `error: ${result.errors.message}` };
    return { allowed: result.overallResult === 'Allowed', result: result.overallResult };
  }

  /** The Allow statements of a role as (action, resource) pairs, for the unused-grant report. */
  grantsOf(identity: FunctionIdentity): { action: string; resource: string; statement: Statement }[] {
    return identity.identityPolicies.flatMap(({ policy }) =>
      policy.Statement.filter((statement) => statement.Effect === 'Allow').flatMap((statement) =>
        asList(statement.Action).flatMap((action) =>
          asList(statement.Resource).map((resource) => ({ action, resource, statement })),
        ),
      ),
    );
  }

  #setResourcePolicy(arn: string, policy: PolicyDocument): void {
    this.#resourcePolicies.set(arn, policy);
  }

  #addResourceStatement(arn: string, statement: Statement): void {
    const policy = this.#resourcePolicies.get(arn) ?? { Version: '2012-10-17', Statement: [] };
    policy.Statement.push(statement);
    this.#resourcePolicies.set(arn, policy);
  }
}

/** IAM's wildcard match (`*` and `?`), case-insensitive for actions. */
export function wildcardMatches(pattern: string, value: string, ignoreCase = false): boolean {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, ignoreCase ? 'i' : '').test(value);
}
