import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseStageConfig } from '../../infra/config/stage-config.js';
import {
  callerPolicyName,
  invokePaths,
  OPERATOR_GROUPS,
  operatorRoleName,
} from '../../infra/constructs/operators.js';
import { PayoutsStack } from '../../infra/stacks/payouts-stack.js';
import { apiRouteTable } from '../../lib/api/functions/index.js';
import { ApiRoleGrantsSchema, type OperatorRole } from '../../lib/operators/roles.js';
import { stageConfigFromCdkJson, testApp } from './support/synth.js';

/** The dev stage with one machine caller given a role. */
function stackWithMachine() {
  const config = parseStageConfig('dev', {
    ...stageConfigFromCdkJson('dev'),
    apiRoles: { 'payouts-ci': ['requester'] },
  });
  return new PayoutsStack(testApp(), 'Payouts-dev', { stage: 'dev', config });
}

/** The `<METHOD>/<path>` of each execute-api ARN of a synthesised policy statement (an Fn::Join each). */
function invokedPaths(resources: unknown): string[] {
  const list = Array.isArray(resources) ? resources : [resources];
  return list.map((resource) => {
    const parts = (resource as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const tail = String(parts.at(-1));
    return tail.slice(tail.indexOf('/$default/') + '/$default/'.length);
  });
}

describe('operators as people: the user pool, its groups and the identity pool', () => {
  const stack = stackWithMachine();
  const template = Template.fromStack(stack);
  const resolve = (value: unknown) => Stack.of(stack).resolve(value);
  const operators = stack.operators;

  it('creates a user pool nobody signs up to, with MFA required (one-time codes) and threat protection', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UserPoolTier: 'PLUS',
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
    });
  });

  it('creates one group per role, each with the role its members sign in as', () => {
    for (const [group, spec] of Object.entries(OPERATOR_GROUPS)) {
      template.hasResourceProperties('AWS::Cognito::UserPoolGroup', {
        GroupName: group,
        Precedence: spec.precedence,
        RoleArn: Match.anyValue(),
      });
      template.hasResourceProperties('AWS::IAM::Role', {
        RoleName: operatorRoleName('dev', group as keyof typeof OPERATOR_GROUPS),
        MaxSessionDuration: 3600,
      });
    }
    expect(Object.keys(template.findResources('AWS::Cognito::UserPoolGroup'))).toHaveLength(4);
  });

  it("lets only the identity pool's signed-in people assume a group's role, and a viewer invoke GET alone", () => {
    const roles = template.findResources('AWS::IAM::Role', {
      Properties: { RoleName: Match.stringLikeRegexp('^payouts-dev-operator-') },
    });
    expect(Object.keys(roles)).toHaveLength(4);
    for (const role of Object.values(roles)) {
      expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        {
          Effect: 'Allow',
          Action: 'sts:AssumeRoleWithWebIdentity',
          Principal: { Federated: 'cognito-identity.amazonaws.com' },
          Condition: {
            StringEquals: { 'cognito-identity.amazonaws.com:aud': resolve(operators?.identityPool.ref) },
            'ForAnyValue:StringLike': { 'cognito-identity.amazonaws.com:amr': 'authenticated' },
          },
        },
      ]);
      const [statement] = role.Properties.Policies[0].PolicyDocument.Statement;
      expect(statement.Action).toBe('execute-api:Invoke');
      const group = String(role.Properties.RoleName).replace('payouts-dev-operator-', '') as OperatorRole;
      expect(invokedPaths(statement.Resource)).toEqual(
        invokePaths(apiRouteTable(), OPERATOR_GROUPS[group].apiRoles),
      );
    }
    template.hasResourceProperties('AWS::Cognito::IdentityPool', {
      AllowUnauthenticatedIdentities: false,
      // The CLI's client and the console's, each token checked with the pool when it is exchanged.
      CognitoIdentityProviders: [
        Match.objectLike({ ServerSideTokenCheck: true }),
        Match.objectLike({ ServerSideTokenCheck: true }),
      ],
    });
    template.hasResourceProperties('AWS::Cognito::IdentityPoolRoleAttachment', {
      RoleMappings: {
        operators: Match.objectLike({ Type: 'Token', AmbiguousRoleResolution: 'Deny' }),
        console: Match.objectLike({ Type: 'Token', AmbiguousRoleResolution: 'Deny' }),
      },
    });
  });

  it('ships a managed policy per role for machine callers, reaching only the routes of that role', () => {
    const policies = template.findResources('AWS::IAM::ManagedPolicy', {
      Properties: { ManagedPolicyName: Match.stringLikeRegexp('^payouts-dev-caller-') },
    });
    expect(Object.keys(policies)).toHaveLength(4);
    const reach = (role: OperatorRole) => {
      const policy = Object.values(policies).find(
        (candidate) => candidate.Properties.ManagedPolicyName === callerPolicyName('dev', role),
      );
      const [statement] = policy?.Properties.PolicyDocument.Statement ?? [];
      expect(statement.Action).toBe('execute-api:Invoke');
      return invokedPaths(statement.Resource);
    };
    // Every read but the operators' own, which only admins may call.
    expect(reach('viewer')).toContain('GET/payouts/*');
    expect(reach('viewer').filter((path) => path.startsWith('GET/operators'))).toEqual([]);
    expect(reach('viewer').every((path) => path.startsWith('GET/'))).toBe(true);
    // An admin (who reads too) reaches every read, the operators' included.
    expect(reach('admin')).toContain('GET/*');
    expect(reach('admin')).toContain('POST/operators/*/proposals/*/confirm');
    expect(reach('requester')).toContain('POST/payouts');
    expect(reach('requester')).not.toContain('POST/payouts/*/approve');
    expect(reach('approver')).toContain('POST/payouts/*/approve');
    expect(reach('approver')).not.toContain('POST/payouts');
    expect(reach('admin')).toContain('POST/controls/pause');
    expect(reach('admin')).not.toContain('POST/payouts/*/approve');
    for (const role of ['requester', 'approver'] as const)
      expect(reach(role)).not.toContain('POST/controls/pause');
  });

  it("tells every API function the groups' roles, the machines' and the pool, and no other function", () => {
    const apiFunctions = [...stack.functions].filter(([name]) => name.startsWith('api-'));
    expect(apiFunctions.length).toBeGreaterThan(5);
    for (const [, fn] of apiFunctions) {
      const env = resolve((fn.function.node.defaultChild as { environment?: unknown }).environment) as {
        variables: Record<string, unknown>;
      };
      const grants = ApiRoleGrantsSchema.parse(JSON.parse(String(env.variables.OPS_API_ROLES)));
      expect(grants).toEqual({
        'payouts-ci': ['requester'],
        'payouts-dev-operator-admin': ['viewer', 'admin'],
        'payouts-dev-operator-approver': ['viewer', 'approver'],
        'payouts-dev-operator-requester': ['viewer', 'requester'],
        'payouts-dev-operator-viewer': ['viewer'],
      });
      expect(env.variables.OPS_OPERATOR_IDENTITY_POOL_ID).toEqual(resolve(operators?.identityPool.ref));
      expect(env.variables.OPS_OPERATOR_USER_POOL_PROVIDER).toEqual(
        resolve(operators?.userPool.userPoolProviderName),
      );
    }
    const others = [...stack.functions].filter(([name]) => !name.startsWith('api-'));
    for (const [, fn] of others) {
      const env = resolve((fn.function.node.defaultChild as { environment?: unknown }).environment) as
        | { variables?: Record<string, unknown> }
        | undefined;
      expect(env?.variables?.OPS_API_ROLES).toBeUndefined();
    }
  });

  it("stays under CloudFormation's 500 resources a stack may hold", () => {
    expect(Object.keys(template.toJSON().Resources).length).toBeLessThan(500);
  });
});

describe('stage config apiRoles', () => {
  const valid = stageConfigFromCdkJson('dev');

  it('defaults to none: an IAM caller that is not an operator holds no role', () => {
    const { apiRoles: _, ...without } = valid;
    expect(parseStageConfig('qa', without).apiRoles).toEqual({});
  });

  it('refuses a role that does not exist and an entry without roles, naming apiRoles', () => {
    expect(() => parseStageConfig('qa', { ...valid, apiRoles: { 'payouts-ci': ['root'] } })).toThrow(
      /apiRoles/,
    );
    expect(() => parseStageConfig('qa', { ...valid, apiRoles: { 'payouts-ci': [] } })).toThrow(/apiRoles/);
    expect(() => parseStageConfig('qa', { ...valid, apiRoles: { 'a b': ['viewer'] } })).toThrow(/apiRoles/);
  });
});
