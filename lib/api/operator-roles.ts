import { sessionNamedRole } from '../payouts/identity.js';
import * as z from '../shared/zod.js';

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
