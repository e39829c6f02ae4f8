import type { Principal } from './model.js';

/**
 * `arn:<partition>:sts::<account>:assumed-role/<role>/<session>`, optionally followed by `#<person>` when
 * `principalOf` vouches for the session name (see `sessionNamedRole`). Role and session names never contain
 * `#` (IAM allows only `[\w+=,.@-]`), so the suffix cannot come from AWS itself.
 */
const ASSUMED_ROLE_ARN =
  /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([\w+=,.@-]+)\/([\w+=,.@-]+)(?:#(.+))?$/;
/** `arn:<partition>:sts::<account>:federated-user/<name>`: the name is whatever the IAM user passed. */
const FEDERATED_USER_ARN = /^arn:(aws[a-z-]*):sts::(\d{12}):federated-user\/.+$/;

/**
 * The stable identity a principal stands for: the one maker and checker are compared by (four eyes).
 *
 * - An assumed-role session is its role: `arn:aws:sts::1:assumed-role/Ops/alice` and `.../Ops/bob` are the
 *   same identity, because a caller allowed to assume the role may type any session name. Only when
 *   `principalOf` appended `#<person>` (a role whose trust policy binds the session name to the person, or an
 *   IAM Identity Center role, as the deployment declares in `OPS_SESSION_NAMED_ROLES`; see docs/controls.md)
 *   is the identity the role plus that person.
 * - A federated-user session (`GetFederationToken`) is every federated user of the account: its name is
 *   chosen by the caller and the user behind it is not in the ARN.
 * - Anything else (IAM user ARN, local `X-Ops-Principal`, a system principal) is trimmed and compared without
 *   case: `ALICE` is `alice`, as IAM itself does not tell names apart by case.
 *
 * Merging too much only ever refuses an approval; it never lets one person approve their own request.
 *
 * @example identityOf({ id: 'arn:aws:sts::123456789012:assumed-role/Ops/Alice', kind: 'user' })
 * // 'arn:aws:iam::123456789012:role/ops'
 */
export function identityOf(principal: Principal): string {
  const id = principal.id.trim();
  const assumed = ASSUMED_ROLE_ARN.exec(id);
  if (assumed) {
    const [, partition, account, role, , person] = assumed;
    const base = `arn:${partition}:iam::${account}:role/${role}`.toLowerCase();
    return person === undefined ? base : `${base}#${person.trim().toLowerCase()}`;
  }
  const federated = FEDERATED_USER_ARN.exec(id);
  if (federated) return `arn:${federated[1]}:sts::${federated[2]}:federated-user`;
  return id.toLowerCase();
}

/** True when the two principals are the same person or system by `identityOf`. */
export function sameIdentity(a: Principal, b: Principal): boolean {
  return identityOf(a) === identityOf(b);
}

/**
 * The role name and session name of an assumed-role ARN, or undefined for any other principal.
 *
 * @example assumedRoleOf('arn:aws:sts::123456789012:assumed-role/Ops/alice') // { role: 'Ops', session: 'alice' }
 */
export function assumedRoleOf(arn: string): { role: string; session: string } | undefined {
  const match = ASSUMED_ROLE_ARN.exec(arn);
  if (!match || match[5] !== undefined) return undefined;
  return { role: match[3] as string, session: match[4] as string };
}

/**
 * True when `role` is one the deployment declared session-named: an exact role name, or a prefix ending in
 * `*` (IAM Identity Center names its roles `AWSReservedSSO_<permission set>_<random>`). Compared without case,
 * as IAM compares role names.
 */
export function sessionNamedRole(role: string, declared: readonly string[]): boolean {
  const name = role.toLowerCase();
  return declared.some((entry) => {
    const pattern = entry.trim().toLowerCase();
    if (pattern === '' || pattern === '*') return false;
    return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
  });
}
