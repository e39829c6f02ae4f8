import type { Principal } from './principal.js';

/**
 * `arn:<partition>:sts::<account>:assumed-role/<role>/<session>`, optionally followed by `#<person>` when
 * `operatorOf` (lib/api/principal.ts) vouches for the session name (see `sessionNamedRole`). Role and session names never contain
 * `#` (IAM allows only `[\w+=,.@-]`), so the suffix cannot come from AWS itself.
 */
const ASSUMED_ROLE_ARN =
  /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([\w+=,.@-]+)\/([\w+=,.@-]+)(?:#(.+))?$/;
/** `arn:<partition>:sts::<account>:federated-user/<name>`: the name is whatever the IAM user passed. */
const FEDERATED_USER_ARN = /^arn:(aws[a-z-]*):sts::(\d{12}):federated-user\/.+$/;
/**
 * `arn:<partition>:iam::<account>:user/<path/><name>`. The path is not part of the name: IAM user names are
 * unique in an account whatever their path, so `user/ops/alice` and `user/alice` are one user.
 */
const IAM_USER_ARN = /^arn:(aws[a-z-]*):iam::(\d{12}):user\/(?:.*\/)?([\w+=,.@-]+)$/;
/**
 * `arn:<partition>:iam::<account>:role/<role>#<person>`: the identity `identityOf` returned for a vouched
 * session before persons had their own namespace. Such a string can only reach us as a principal id stored or
 * sent in that form; it is still that person, so it can never be used to approve that person's own request.
 */
const PREVIOUS_VOUCHED_IDENTITY = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/[\w+=,.@-]+#(.+)$/;
/**
 * `<username>#cognito:<sub>` (or `cognito:<sub>`): a person a user pool token named to the local API
 * (lib/local/verified-caller.ts); the username is for people reading the audit, the `sub` is the person.
 */
const POOL_PERSON = /^(?!arn:)(?:[^#]*#)?cognito:([\w-]{1,128})$/;

/**
 * The one namespace of the people of an account, whichever role, permission set or IAM user they came through.
 * `match` holds the partition and account in groups 1 and 2 and the person's name in group `name`.
 */
function personIdentity(match: RegExpExecArray, name: number): string {
  return `arn:${match[1]}:iam::${match[2]}:person/${(match[name] as string).trim()}`;
}

/**
 * The stable identity a principal stands for: the one maker and checker are compared by (four eyes).
 *
 * - A person the account vouches for is that person alone, `arn:<partition>:iam::<account>:person/<name>`,
 *   whichever way they signed in: an assumed-role session whose name `operatorOf` vouched for (the `#<person>`
 *   it appends for a role in `OPS_SESSION_NAMED_ROLES`: a trust policy or IAM Identity Center binds the session
 *   name to the person; see docs/controls.md), and an IAM user (`user/<path/><name>`). Alice requesting through
 *   one permission set and approving through another, or as IAM user `alice` and then through a role whose
 *   session is bound to `alice`, is one person: keeping the role in the identity let her approve herself.
 * - An assumed-role session that is not vouched for is its role: `arn:aws:sts::1:assumed-role/Ops/alice` and
 *   `.../Ops/bob` are the same identity, because a caller allowed to assume the role may type any session name.
 * - A federated-user session (`GetFederationToken`) is every federated user of the account: its name is
 *   chosen by the caller and the user behind it is not in the ARN.
 * - A person a user pool token named locally (`bob#cognito:<sub>`) is `person/cognito:<sub>`: their `sub`.
 * - Anything else (local `X-Ops-Principal`, a system principal) is itself.
 *
 * Everything is trimmed and compared without case: `ALICE` is `alice`, as IAM itself does not tell names apart
 * by case. Every identity this function returned before (`role/<role>#<person>`, `user/<name>`) maps to the
 * same person as the principal it came from, and nothing it merged before is told apart now: merging only
 * ever refuses an approval, it never lets one person approve their own request.
 *
 * @example identityOf({ id: 'arn:aws:sts::123456789012:assumed-role/Ops/Alice', kind: 'user' })
 * // 'arn:aws:iam::123456789012:role/ops'
 * @example identityOf({ id: 'arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Ops_1/Alice#Alice', kind: 'user' })
 * // 'arn:aws:iam::123456789012:person/alice'
 */
export function identityOf(principal: Principal): string {
  // Lower-cased first, so every pattern below sees one spelling and no spelling escapes its merge.
  const id = principal.id.trim().toLowerCase();
  const assumed = ASSUMED_ROLE_ARN.exec(id);
  if (assumed) {
    const [, partition, account, role, , person] = assumed;
    return person === undefined
      ? `arn:${partition}:iam::${account}:role/${role}`
      : personIdentity(assumed, 5);
  }
  const user = IAM_USER_ARN.exec(id) ?? PREVIOUS_VOUCHED_IDENTITY.exec(id);
  if (user) return personIdentity(user, 3);
  const federated = FEDERATED_USER_ARN.exec(id);
  if (federated) return `arn:${federated[1]}:sts::${federated[2]}:federated-user`;
  const pooled = POOL_PERSON.exec(id);
  if (pooled) return `person/cognito:${pooled[1]}`;
  return id;
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
