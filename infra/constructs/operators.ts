import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AccountRecovery,
  CfnIdentityPool,
  CfnIdentityPoolRoleAttachment,
  CfnUserPoolGroup,
  FeaturePlan,
  Mfa,
  StandardThreatProtectionMode,
  UserPool,
  type UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import {
  FederatedPrincipal,
  ManagedPolicy,
  PolicyDocument,
  PolicyStatement,
  Role,
} from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { ApiRoleGrants, OperatorRole } from '../../lib/operators/roles.js';

export interface OperatorsProps {
  readonly stage: string;
  /** The ops API, whose routes the groups' roles may invoke (`execute-api:Invoke`). */
  readonly api: HttpApi;
  /** Its routes and the role each needs: a group's role, and a caller policy, may invoke only its own. */
  readonly routes: readonly OperatorRoute[];
  /** Kept on `cdk destroy` unless a throwaway stage says otherwise: the pool holds the people. */
  readonly retainPool: boolean;
}

/**
 * Each group a person can be put in, the role its members' credentials carry, the API roles that role holds,
 * and which methods IAM lets it invoke (the API checks the roles again: lib/operators/roles.ts). Precedence
 * picks a member's default role when they belong to several groups (0 first); they may ask for another of
 * theirs when they exchange their token (`--custom-role-arn`, docs/deploy.md "Operators").
 */
export const OPERATOR_GROUPS = {
  admin: { precedence: 0, apiRoles: ['viewer', 'admin'] },
  approver: { precedence: 1, apiRoles: ['viewer', 'approver'] },
  requester: { precedence: 2, apiRoles: ['viewer', 'requester'] },
  viewer: { precedence: 3, apiRoles: ['viewer'] },
} as const satisfies Record<OperatorRole, { precedence: number; apiRoles: readonly OperatorRole[] }>;

/** A route of the ops API as IAM sees it: method, path template, and the role the API asks of its caller. */
export interface OperatorRoute {
  readonly method: string;
  readonly path: string;
  readonly role: OperatorRole;
}

/**
 * What holders of `roles` may invoke, as `execute-api` resource paths (`<METHOD>/<path>`, a path parameter
 * `*`): a method all of whose routes they may call is one `<METHOD>/*`; otherwise each of their routes of that
 * method. Derived from the routes' own roles, so IAM and the API's check (lib/api/router.ts) never disagree on
 * which routes a role reaches; the API still checks each request.
 *
 * @example invokePaths(routes, ['viewer']) // ['GET/*']
 */
export function invokePaths(routes: readonly OperatorRoute[], roles: readonly OperatorRole[]): string[] {
  const held = new Set<OperatorRole>(roles);
  const methods = [...new Set(routes.map((route) => route.method))].sort();
  return methods.flatMap((method) => {
    const ofMethod = routes.filter((route) => route.method === method);
    const reachable = ofMethod.filter((route) => held.has(route.role));
    if (reachable.length === 0) return [];
    if (reachable.length === ofMethod.length) return [`${method}/*`];
    return [...new Set(reachable.map((route) => `${method}${route.path.replace(/\{[^}]+\}/g, '*')}`))].sort();
  });
}

/** The name of the managed policy a machine caller of `role` is given (docs/deploy.md, "Machine callers"). */
export const callerPolicyName = (stage: string, role: OperatorRole) => `payouts-${stage}-caller-${role}`;

/** The IAM role name of a group's members, fixed so the API functions can name it before it exists. */
export const operatorRoleName = (stage: string, group: OperatorRole) => `payouts-${stage}-operator-${group}`;

/**
 * The operators, as people (docs/controls.md, "Identity"): a Cognito user pool with MFA required and no
 * self-sign-up, a group per role, and an identity pool that turns a signed-in person into short-lived IAM
 * credentials of their group's role. The API stays IAM-authorised for people and machines alike; API Gateway
 * reports the identity pool's credentials with the person's user pool `sub`, which four eyes compares.
 */
export class Operators extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly identityPool: CfnIdentityPool;
  /** What the API functions are told (`OPS_API_ROLES`, `OPS_OPERATOR_*`). */
  readonly apiRoles: ApiRoleGrants;
  /** The managed policy a machine caller of each role is given: the same routes as the role's people. */
  readonly callerPolicies: Partial<Record<OperatorRole, ManagedPolicy>> = {};

  constructor(scope: Construct, id: string, props: OperatorsProps) {
    super(scope, id);
    const { region, account, partition } = Stack.of(this);
    this.userPool = new UserPool(this, 'UserPool', {
      userPoolName: `payouts-operators-${props.stage}`,
      selfSignUpEnabled: false,
      signInAliases: { email: true, username: true },
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 14,
        requireDigits: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Threat protection blocks sign-ins with leaked or guessed credentials: these people approve payouts. Plus is
      // priced per monthly active user, and a merchant's operators are a handful.
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION,
      deletionProtection: props.retainPool,
      removalPolicy: props.retainPool ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.client = this.userPool.addClient('Cli', {
      userPoolClientName: 'payouts-cli',
      // SRP for a client that implements it; the password flow for the AWS CLI's sign-in (docs/deploy.md, over TLS,
      // with the one-time code still required).
      authFlows: { userSrp: true, userPassword: true },
      generateSecret: false,
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(12),
    });
    this.identityPool = new CfnIdentityPool(this, 'IdentityPool', {
      identityPoolName: `payouts_operators_${props.stage}`,
      allowUnauthenticatedIdentities: false,
      cognitoIdentityProviders: [
        {
          clientId: this.client.userPoolClientId,
          providerName: this.userPool.userPoolProviderName,
          // A signed-out or disabled person's token is refused when it is exchanged.
          serverSideTokenCheck: true,
        },
      ],
    });
    const members = new FederatedPrincipal(
      'cognito-identity.amazonaws.com',
      {
        StringEquals: { 'cognito-identity.amazonaws.com:aud': this.identityPool.ref },
        'ForAnyValue:StringLike': { 'cognito-identity.amazonaws.com:amr': 'authenticated' },
      },
      'sts:AssumeRoleWithWebIdentity',
    );
    const grants: Record<string, OperatorRole[]> = {};
    const apiArn = `arn:${partition}:execute-api:${region}:${account}:${props.api.apiId}`;
    const apiLogicalId = Stack.of(this).getLogicalId(props.api.node.defaultChild as CfnElement);
    for (const [group, spec] of Object.entries(OPERATOR_GROUPS) as [
      OperatorRole,
      (typeof OPERATOR_GROUPS)[OperatorRole],
    ][]) {
      const roleName = operatorRoleName(props.stage, group);
      const invoke = new PolicyStatement({
        actions: ['execute-api:Invoke'],
        resources: invokePaths(props.routes, spec.apiRoles).map((path) => `${apiArn}/$default/${path}`),
      });
      const role = new Role(this, `${group}Role`, {
        roleName,
        description: `Payouts operators in the ${group} group (${props.stage})`,
        assumedBy: members,
        maxSessionDuration: Duration.hours(1),
        inlinePolicies: { invoke: new PolicyDocument({ statements: [invoke] }) },
      });
      // The same reach for a machine of this role (a service, CI): attached to its own role or user, beside an
      // `apiRoles` entry naming it, which is what the API checks.
      const callerPolicy = new ManagedPolicy(this, `${group}CallerPolicy`, {
        managedPolicyName: callerPolicyName(props.stage, group),
        description: `Invoke the payouts ops API (${props.stage}) as a ${group}: list the caller in apiRoles too`,
        statements: [invoke],
      });
      this.callerPolicies[group] = callerPolicy;
      new CfnUserPoolGroup(this, `${group}Group`, {
        userPoolId: this.userPool.userPoolId,
        groupName: group,
        description: `Payouts ${group}s: ${spec.apiRoles.join(', ')}`,
        precedence: spec.precedence,
        roleArn: role.roleArn,
      });
      grants[roleName] = [...spec.apiRoles];
      for (const path of invokePaths(props.routes, spec.apiRoles).filter((p) => p.includes('*'))) {
        for (const scope of [role, callerPolicy]) {
          Validations.of(scope).acknowledge({
            id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${apiLogicalId}>/$default/${path}]`,
            reason: `The routes of this role (${path}: every route of a method, or a path parameter). The API checks the role of each route again (lib/api/router.ts).`,
          });
        }
      }
    }
    this.apiRoles = grants;
    this.#roleAttachment = new CfnIdentityPoolRoleAttachment(this, 'Roles', {
      identityPoolId: this.identityPool.ref,
      roleMappings: { operators: this.#groupRoles(this.client) },
    });
  }

  readonly #roleAttachment: CfnIdentityPoolRoleAttachment;
  readonly #mappings: Record<string, CfnIdentityPoolRoleAttachment.RoleMappingProperty> = {};

  /** A client's tokens give the roles of the person's groups (`cognito:preferred_role`); none: no credentials. */
  #groupRoles(client: UserPoolClient): CfnIdentityPoolRoleAttachment.RoleMappingProperty {
    return {
      identityProvider: `${this.userPool.userPoolProviderName}:${client.userPoolClientId}`,
      type: 'Token',
      ambiguousRoleResolution: 'Deny',
    };
  }

  /**
   * Another app client of the pool (the console's) whose ID tokens the identity pool exchanges, for the same
   * group roles and with the same server-side check of the token.
   */
  trustClient(client: UserPoolClient, key: string): void {
    const providers = [...((this.identityPool.cognitoIdentityProviders as unknown[] | undefined) ?? [])];
    providers.push({
      clientId: client.userPoolClientId,
      providerName: this.userPool.userPoolProviderName,
      serverSideTokenCheck: true,
    });
    this.identityPool.cognitoIdentityProviders =
      providers as CfnIdentityPool.CognitoIdentityProviderProperty[];
    this.#mappings[key] = this.#groupRoles(client);
    this.#roleAttachment.roleMappings = { operators: this.#groupRoles(this.client), ...this.#mappings };
  }

  /** The variables the API functions read (lib/api/api-function.ts `apiEnvironmentOf`). */
  apiEnvironment(): Record<string, string> {
    return {
      OPS_OPERATOR_IDENTITY_POOL_ID: this.identityPool.ref,
      OPS_OPERATOR_USER_POOL_PROVIDER: this.userPool.userPoolProviderName,
    };
  }
}
