/**
 * Who does things to money: a person or role, or a part of the system, and what a person's decision on an
 * instruction records. Four eyes compares these (identity.ts); every room names its actors with them.
 */

/** Who did something: a person or role (IAM principal, X-Ops-Principal) or a part of the system. */
export interface Principal {
  readonly id: string;
  readonly kind: 'user' | 'system';
}

/**
 * A second person's refusal of an instruction waiting for approval (a payout, a refund, a run): who, why and
 * when. The instruction ends `cancelled`, for good.
 */
export interface Rejection {
  readonly actor: Principal;
  readonly reason: string;
  readonly at: string;
}

/** An approval recorded on an instruction: who and when (the first of two, `firstApproval`). */
export interface Approval {
  readonly actor: Principal;
  readonly at: string;
}

export const systemPrincipal = (component: string): Principal => ({
  id: `system:${component}`,
  kind: 'system',
});
