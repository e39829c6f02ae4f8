import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type Operator, unauthenticated } from '../api/index.js';
import { type OperatorRole, OperatorRoleSchema } from '../operators/index.js';
import * as z from '../shared/zod.js';

/**
 * The API roles of each operator group of the user pool, as the stack's groups give them
 * (infra/constructs/operators.ts `OPERATOR_GROUPS`, held equal by a test): every group reads, so an approver sees
 * what they approve.
 */
export const OPERATOR_GROUP_ROLES: Readonly<Record<OperatorRole, readonly OperatorRole[]>> = {
  admin: ['viewer', 'admin'],
  approver: ['viewer', 'approver'],
  requester: ['viewer', 'requester'],
  viewer: ['viewer'],
};

/** A request the local server let through with a verified token has claims here, as API Gateway's JWT authorizer. */
const JwtAuthorized = z.object({ authorizer: z.object({ jwt: z.object({ claims: z.unknown() }) }) });

/**
 * The claims the API reads: the user pool's `sub` (the person), the username (shown in the audit) and the groups,
 * which API Gateway hands over as one string `[a b]` (an array when a test builds the event by hand).
 */
const PersonClaims = z.object({
  sub: z.string().check(z.regex(/^[\w-]{1,128}$/, 'must be a user pool sub')),
  'cognito:username': z.optional(z.string()),
  'cognito:groups': z.optional(z.union([z.string(), z.array(z.string())])),
});

/**
 * The caller a verified ID token names (`ApiEnvironment.verifiedCaller`), or undefined for a request the local
 * server passed on without one (LOCAL_TRUST_PRINCIPAL_HEADER=1). The person is `<username>#cognito:<sub>`,
 * compared by the `sub` alone (identityOf), so four eyes compares people whatever their username; their roles are
 * their groups'. A group that is not an operator group gives none.
 *
 * @example verifiedCallerOf(event) // { principal: { id: 'bob#cognito:0f6c…', kind: 'user' }, roles: Set { 'viewer', 'approver' } }
 */
export function verifiedCallerOf(event: APIGatewayProxyEventV2): Operator | undefined {
  const authorized = JwtAuthorized.safeParse(event.requestContext);
  if (!authorized.success) return undefined;
  const parsed = PersonClaims.safeParse(authorized.data.authorizer.jwt.claims);
  if (!parsed.success) throw unauthenticated('the verified token names no user pool sub');
  const { sub, 'cognito:username': username, 'cognito:groups': groups } = parsed.data;
  const names = typeof groups === 'string' ? groups.replace(/^\[|\]$/g, '').split(/[\s,]+/) : (groups ?? []);
  const roles = new Set<OperatorRole>();
  for (const name of names) {
    const group = OperatorRoleSchema.safeParse(name);
    if (group.success) for (const role of OPERATOR_GROUP_ROLES[group.data]) roles.add(role);
  }
  const shown = username !== undefined && /^[\w+=,.@-]{1,128}$/.test(username) ? `${username}#` : '';
  return { principal: { id: `${shown}cognito:${sub}`, kind: 'user' }, roles };
}
