import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseStageConfig } from '../../infra/config/stage-config.js';
import { OPERATOR_GROUPS, operatorRoleName } from '../../infra/constructs/operators.js';
import { PayoutsStack } from '../../infra/stacks/payouts-stack.js';
import { ApiRoleGrantsSchema } from '../../lib/api/operator-roles.js';
import { stageConfigFromCdkJson, testApp } from './support/synth.js';

/** The dev stage with one machine caller given a role. */
function stackWithMachine() {
  const config = parseStageConfig('dev', {
    ...stageConfigFromCdkJson('dev'),
    apiRoles: { 'payouts-ci': ['requester'] },
  });
  return new PayoutsStack(testApp(), 'Payouts-dev', { stage: 'dev', config });
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
      const resource = JSON.stringify(statement.Resource);
      expect(resource).toContain(
        role.Properties.RoleName === 'payouts-dev-operator-viewer' ? '/$default/GET/*' : '/$default/*/*',
      );
    }
    template.hasResourceProperties('AWS::Cognito::IdentityPool', {
      AllowUnauthenticatedIdentities: false,
      CognitoIdentityProviders: [Match.objectLike({ ServerSideTokenCheck: true })],
    });
    template.hasResourceProperties('AWS::Cognito::IdentityPoolRoleAttachment', {
      RoleMappings: { operators: Match.objectLike({ Type: 'Token', AmbiguousRoleResolution: 'Deny' }) },
    });
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
