import type { Principal } from '../controls/index.js';

/**
 * The operators' groups of the user pool, as the stack creates them (infra/constructs/operators.ts) and the API
 * reads them as roles (lib/operators/roles.ts `OPERATOR_ROLES`: test/operators/operator-service.test.ts holds
 * the two lists equal).
 */
export const OPERATOR_GROUPS = ['viewer', 'requester', 'approver', 'admin'] as const;
export type OperatorGroup = (typeof OPERATOR_GROUPS)[number];

/**
 * The groups whose members can move money or hand out access (ask for a payout, approve one, or manage
 * operators and the controls): granting one takes two admins. `viewer` only reads.
 */
export const MONEY_GROUPS: ReadonlySet<OperatorGroup> = new Set(['requester', 'approver', 'admin']);

/** One person of the user pool as the directory knows them. */
export interface DirectoryUser {
  readonly username: string;
  readonly email?: string;
  /** The user pool's `sub`: the person, whatever their username (four eyes compares it). */
  readonly sub: string;
  readonly enabled: boolean;
  /** Cognito's account status: `CONFIRMED`, `FORCE_CHANGE_PASSWORD` (invited, not signed in yet), … */
  readonly status: string;
  readonly groups: readonly OperatorGroup[];
  readonly createdAt?: string;
}

/** Who may sign in and what they may do, as an audit records it before and after a change. */
export interface OperatorAccess {
  readonly groups: readonly OperatorGroup[];
  readonly enabled: boolean;
}

export const OPERATOR_ACTIONS = [
  'invited',
  'granted',
  'grant-proposed',
  'revoked',
  'disabled',
  'enable-proposed',
  'enabled',
  'proposal-cancelled',
] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** One change of an operator's access, or a proposal of one: who, when, from → to, why. */
export interface OperatorChange {
  readonly id: string;
  readonly username: string;
  readonly action: OperatorAction;
  readonly actor: Principal;
  readonly at: string;
  readonly from: OperatorAccess;
  /** What the access is after the change; for a proposal, what it would be once confirmed. */
  readonly to: OperatorAccess;
  readonly reason: string;
  /** The proposal it made, confirmed or cancelled (a grant of a money group, an enable). */
  readonly proposalId?: string;
  /** Who proposed it, when the change is a confirmed proposal: the second admin is `actor`. */
  readonly proposedBy?: Principal;
}

export type ProposalKind = 'grant' | 'enable';
export type ProposalStatus = 'pending' | 'confirmed' | 'cancelled';

/**
 * A change that gives access, waiting for a second admin: granting a group that moves money, or enabling an
 * operator again. The admin who proposed it can never confirm it (by stable identity).
 */
export interface OperatorProposal {
  readonly id: string;
  readonly username: string;
  readonly kind: ProposalKind;
  /** The groups a grant adds (none for an enable). */
  readonly groups: readonly OperatorGroup[];
  readonly reason: string;
  readonly proposedBy: Principal;
  readonly proposedAt: string;
  readonly status: ProposalStatus;
  readonly decidedBy?: Principal;
  readonly decidedAt?: string;
}

/** An operator as the API answers them: the directory's view and what waits for a second admin. */
export interface OperatorView extends DirectoryUser {
  readonly pendingProposals: readonly OperatorProposal[];
}
