import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Principal } from '../controls/index.js';
import { sessionNamedRole } from '../controls/index.js';
import { jsonText } from '../shared/json-text.js';
import * as z from '../shared/zod.js';

/** Who is calling and what they may do through the API. */
export interface Operator {
  readonly principal: Principal;
  readonly roles: ReadonlySet<OperatorRole>;
}

/**
 * What a caller may do through the API (docs/controls.md, "Roles"). A person may hold several; none implies
 * another, so an approver who should also read is given `viewer` too (the stack's operator groups are).
 *
 * - `viewer`: every read.
 * - `requester`: creates and withdraws instructions (payouts, runs, rules, refunds, corrections, settlements).
 * - `approver`: approves and resolves what waits for a second person; never their own request (four eyes).
 * - `admin`: pauses and resumes sending, replays or discards dead letters, re-runs a statement.
 */
export const OPERATOR_ROLES = ['viewer', 'requester', 'approver', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const OperatorRoleSchema = z.enum(OPERATOR_ROLES);

/**
 * Which API roles an IAM caller holds, by the name of the role it assumed (a trailing `*` matches a prefix) or
 * `user/<name>` for an IAM user: `OPS_API_ROLES`, from the stage's `apiRoles` and the operator groups' roles. A
 * caller that matches no entry holds no role and is refused everything.
 */
export const ApiRoleGrantsSchema = z.record(
  z
    .string()
    .check(
      z.regex(
        /^(?:user\/)?[\w+=,.@-]{1,64}\*?$/,
        'must be an IAM role name (optionally ending in *) or user/<IAM user name>',
      ),
    ),
  z.array(OperatorRoleSchema).check(z.minLength(1)),
);
export type ApiRoleGrants = z.output<typeof ApiRoleGrantsSchema>;

/** The roles `grants` gives the caller known by its role name (assumed role) or IAM user name. */
export function rolesGranted(
  grants: ApiRoleGrants,
  caller: { readonly role: string } | { readonly user: string },
): ReadonlySet<OperatorRole> {
  const roles = new Set<OperatorRole>();
  for (const [pattern, granted] of Object.entries(grants)) {
    const matches =
      'role' in caller
        ? !pattern.startsWith('user/') && sessionNamedRole(caller.role, [pattern])
        : pattern.toLowerCase() === `user/${caller.user.toLowerCase()}`;
    if (matches) for (const role of granted) roles.add(role);
  }
  return roles;
}

/** Every role: a local caller that names none (npm start, tests), documented as the local mode's trust. */
export const ALL_ROLES: ReadonlySet<OperatorRole> = new Set(OPERATOR_ROLES);

/**
 * The variables that say who a caller of the ops API is and what they may do: part of every function's runtime
 * environment (lib/runtime/runtime-config.ts), and all that api-docs, which builds no runtime, reads.
 */
export const IDENTITY_ENV = {
  /**
   * IAM role names, separated by commas or spaces (a trailing `*` matches a prefix), whose session name is
   * bound to the person, so four eyes tells their sessions apart (docs/controls.md, "Identity"). Default:
   * none, and every session of a role is one identity.
   */
  OPS_SESSION_NAMED_ROLES: z.pipe(
    z.pipe(
      z._default(z.string(), ''),
      z.transform((text: string) => text.split(/[\s,]+/).filter((name) => name !== '')),
    ),
    z.array(
      z
        .string()
        .check(
          z.regex(
            /^[\w+=.@-]{1,64}\*?$/,
            'must be IAM role names separated by commas or spaces, each optionally ending in * (a prefix)',
          ),
        ),
    ),
  ),
  /**
   * The API roles of IAM callers by the role they assumed (or `user/<name>`), JSON: `{"payouts-ci": ["requester"]}`
   * (lib/operators/roles.ts). Default: none, and an IAM caller no entry names is refused every route.
   */
  OPS_API_ROLES: z.pipe(z.pipe(z._default(z.string(), '{}'), jsonText()), ApiRoleGrantsSchema),
  /** The operators' identity pool (its credentials carry the person's user pool `sub`); unset: no pool. */
  OPS_OPERATOR_IDENTITY_POOL_ID: z.optional(z.string().check(z.minLength(1))),
  /** Its user pool's provider name, `cognito-idp.<region>.amazonaws.com/<user pool id>`. */
  OPS_OPERATOR_USER_POOL_PROVIDER: z.optional(z.string().check(z.minLength(1))),
} as const;

const IdentityEnvSchema = z.object(IDENTITY_ENV);
export type IdentityEnv = z.output<typeof IdentityEnvSchema>;

/** The identity variables of `env`, validated (a bad one fails the cold start, naming it). */
export function identityEnvOf(env: Readonly<Record<string, string | undefined>>): IdentityEnv {
  return IdentityEnvSchema.parse(env);
}

/** How the API tells people and machines apart: from `OPS_SESSION_NAMED_ROLES`, `OPS_API_ROLES` and the pool. */
export interface IdentitySettings {
  /**
   * AWS mode: roles whose session name is the person (trust policy or IAM Identity Center), from
   * `OPS_SESSION_NAMED_ROLES`; every other role's sessions count as one identity for four eyes.
   */
  readonly sessionNamedRoles?: readonly string[];
  /** AWS mode: the API roles of IAM callers by role name; none for a caller no entry names. */
  readonly apiRoles?: ApiRoleGrants;
  /**
   * AWS mode: the operators' identity pool and its user pool's provider name
   * (`cognito-idp.<region>.amazonaws.com/<user pool id>`). A request signed with that pool's credentials is the
   * person whose user pool `sub` the pool vouches for, whatever role their group gave them.
   */
  readonly operatorPool?: { readonly identityPoolId: string; readonly userPoolProvider: string };
  /**
   * Local mode: whether a request without verified claims is whoever `X-Ops-Principal` names (`trusted`, the
   * default: the in-process tests call the router directly) or refused with 401 (`ignored`: `npm start` without
   * `LOCAL_TRUST_PRINCIPAL_HEADER=1`, where the local server verifies a user pool token as a gateway would).
   */
  readonly localPrincipalHeader?: 'trusted' | 'ignored';
  /**
   * Local mode: the caller the claims of a token the local server verified name, or undefined for a request
   * without them (lib/local/verified-caller.ts). Given only locally: AWS mode never reads it.
   */
  readonly verifiedCaller?: (event: APIGatewayProxyEventV2) => Operator | undefined;
}

/** What the router needs to tell who a caller is and what they may do (lib/api/principal.ts). */
export function identitySettingsOf(env: IdentityEnv): IdentitySettings {
  const pool =
    env.OPS_OPERATOR_IDENTITY_POOL_ID !== undefined && env.OPS_OPERATOR_USER_POOL_PROVIDER !== undefined
      ? {
          identityPoolId: env.OPS_OPERATOR_IDENTITY_POOL_ID,
          userPoolProvider: env.OPS_OPERATOR_USER_POOL_PROVIDER,
        }
      : undefined;
  return {
    sessionNamedRoles: env.OPS_SESSION_NAMED_ROLES,
    apiRoles: env.OPS_API_ROLES,
    ...(pool && { operatorPool: pool }),
  };
}
