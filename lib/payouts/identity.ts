import type { Principal } from './model.js';

/** `arn:aws:sts::<account>:assumed-role/<role>/<session>`: the session name is chosen by the caller. */
const ASSUMED_ROLE_ARN = /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/;

/**
 * The stable identity a principal stands for, the one maker and checker are compared by (four eyes).
 *
 * - An assumed-role session is its role: `arn:aws:sts::1:assumed-role/Ops/alice` and `.../Ops/bob` are the
 *   same identity, because the session name is whatever the caller typed. Two people acting through one
 *   role must be told apart by `sts:SourceIdentity`, which the caller cannot change once set
 *   (see docs/controls.md); `principalOf` appends it as `#<source identity>`.
 * - Any other id (IAM user ARN, local `X-Ops-Principal`) is trimmed and compared without case, so `ALICE`
 *   is `alice`.
 */
export function identityOf(principal: Principal): string {
  const id = principal.id.trim();
  const [arn = '', sourceIdentity] = splitSourceIdentity(id);
  const assumed = ASSUMED_ROLE_ARN.exec(arn);
  const base = assumed ? `arn:${assumed[1]}:iam::${assumed[2]}:role/${assumed[3]}` : arn;
  const normalised = base.toLowerCase();
  return sourceIdentity === undefined ? normalised : `${normalised}#${sourceIdentity.toLowerCase()}`;
}

/** True when the two principals are the same person or system by `identityOf`. */
export function sameIdentity(a: Principal, b: Principal): boolean {
  return identityOf(a) === identityOf(b);
}

function splitSourceIdentity(id: string): [string, string?] {
  const hash = id.indexOf('#');
  return hash < 0 ? [id] : [id.slice(0, hash), id.slice(hash + 1).trim()];
}
