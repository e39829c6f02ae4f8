import type { Principal } from '../controls/index.js';
import { sameIdentity } from '../controls/index.js';
import type { Clock } from '../shared/clock.js';
import { InvalidTransitionError, NotFoundError } from '../shared/errors.js';
import { ulid } from '../shared/ids.js';
import { poolSubOf } from './access.js';
import type { OperatorDirectory } from './directory.js';
import { OperatorChangeForbiddenError } from './errors.js';
import {
  type DirectoryUser,
  MONEY_GROUPS,
  OPERATOR_GROUPS,
  type OperatorAccess,
  type OperatorAction,
  type OperatorChange,
  type OperatorGroup,
  type OperatorProposal,
  type OperatorView,
} from './model.js';
import type { AccessMarker, OperatorRecords } from './records.js';

/** What a change answers: the operator as they are now, and the proposal it made or decided, if any. */
export interface OperatorChangeResult {
  readonly operator: OperatorView;
  readonly proposal?: OperatorProposal;
  /** True when the change is in force; false when it waits for a second admin (`proposal`). */
  readonly applied: boolean;
}

/** An operator with their audit, as `GET /operators/{username}` answers. */
export interface OperatorDetail extends OperatorView {
  readonly audit: readonly OperatorChange[];
}

const accessOf = (user: DirectoryUser): OperatorAccess => ({ groups: user.groups, enabled: user.enabled });
const ordered = (groups: Iterable<OperatorGroup>): OperatorGroup[] => {
  const set = new Set(groups);
  return OPERATOR_GROUPS.filter((group) => set.has(group));
};
const movesMoney = (groups: readonly OperatorGroup[]) => groups.some((group) => MONEY_GROUPS.has(group));

/**
 * Admins manage the operators of the user pool (docs/controls.md, "Operators"): list them, invite one, grant and
 * revoke groups, disable and enable. Reducing access takes one admin; giving it (a group that moves money, an
 * operator holding one enabled again) takes two: one proposes, another person confirms. No admin changes their
 * own groups or account. Every change, and every proposal, is in the operator's audit: who, when, from → to, why.
 *
 * The pool and the table are not one transaction. A change that gives access is applied in the pool first and
 * recorded after (a failed record leaves the proposal pending, to be confirmed again: adding a group twice is
 * harmless); a disable is recorded first, with the marker that makes the API refuse the operator's tokens, and
 * applied in the pool after, so a failure between the two still refuses them.
 */
export class OperatorService {
  constructor(
    private readonly directory: OperatorDirectory,
    private readonly store: OperatorRecords,
    private readonly clock: Clock,
  ) {}

  list(): Promise<DirectoryUser[]> {
    return this.directory.list();
  }

  async get(username: string): Promise<OperatorDetail> {
    const user = await this.#user(username);
    const [pendingProposals, audit] = await Promise.all([
      this.store.pendingProposals(username),
      this.store.audit(username),
    ]);
    return { ...user, pendingProposals, audit };
  }

  /**
   * Creates the operator (the pool e-mails a temporary password); `viewer` is granted at once, a group that moves
   * money is proposed for a second admin to confirm.
   */
  async invite(
    actor: Principal,
    input: { username: string; email: string; groups: readonly OperatorGroup[]; reason: string },
  ): Promise<OperatorChangeResult> {
    if (await this.directory.get(input.username)) {
      throw new InvalidTransitionError('operator', `an operator named ${input.username} exists already`);
    }
    const groups = ordered(input.groups);
    const now = groups.filter((group) => !MONEY_GROUPS.has(group));
    const later = groups.filter((group) => MONEY_GROUPS.has(group));
    const created = await this.directory.create(input.username, input.email);
    for (const group of now) await this.directory.addToGroup(created.username, group);
    const at = this.#now();
    const invited = this.#change(created.username, 'invited', actor, at, input.reason, {
      from: { groups: [], enabled: false },
      to: { groups: now, enabled: true },
    });
    await this.store.record(invited);
    let proposal: OperatorProposal | undefined;
    if (later.length > 0) {
      proposal = await this.#propose(actor, created.username, 'grant', later, input.reason, {
        groups: now,
        enabled: true,
      });
    }
    return {
      operator: await this.#view(created.username),
      ...(proposal && { proposal }),
      applied: !proposal,
    };
  }

  /**
   * Adds groups: `viewer` alone at once; any group that moves money is proposed, all the groups asked for together,
   * for another admin to confirm (`confirm`).
   */
  async grant(
    actor: Principal,
    username: string,
    input: { groups: readonly OperatorGroup[]; reason: string },
  ): Promise<OperatorChangeResult> {
    const { user, changing: added } = await this.#groupsChanging(actor, username, input.groups, 'add');
    const to = { groups: ordered([...user.groups, ...added]), enabled: user.enabled };
    if (movesMoney(added)) {
      const proposal = await this.#propose(actor, username, 'grant', added, input.reason, accessOf(user), to);
      return { operator: await this.#view(username), proposal, applied: false };
    }
    for (const group of added) await this.directory.addToGroup(username, group);
    await this.store.record(
      this.#change(username, 'granted', actor, this.#now(), input.reason, { from: accessOf(user), to }),
    );
    return { operator: await this.#view(username), applied: true };
  }

  /** A second admin, never the one who proposed it nor the operator themselves, applies a pending proposal. */
  async confirm(actor: Principal, username: string, proposalId: string): Promise<OperatorChangeResult> {
    const user = await this.#user(username);
    const proposal = await this.#pending(username, proposalId);
    this.#notSelf(actor, user, 'confirm a change of their own access');
    if (sameIdentity(proposal.proposedBy, actor)) {
      throw new OperatorChangeForbiddenError(
        `${proposal.proposedBy.id} proposed this; another admin must confirm it (two admins give access)`,
      );
    }
    const from = accessOf(user);
    let to: OperatorAccess;
    let marker: AccessMarker | undefined;
    if (proposal.kind === 'grant') {
      for (const group of proposal.groups) {
        if (!user.groups.includes(group)) await this.directory.addToGroup(username, group);
      }
      to = { groups: ordered([...user.groups, ...proposal.groups]), enabled: user.enabled };
    } else {
      await this.directory.enable(username);
      to = { groups: user.groups, enabled: true };
      marker = { sub: user.sub, disabled: false };
    }
    const at = this.#now();
    const decided: OperatorProposal = { ...proposal, status: 'confirmed', decidedBy: actor, decidedAt: at };
    const change = this.#change(
      username,
      proposal.kind === 'grant' ? 'granted' : 'enabled',
      actor,
      at,
      proposal.reason,
      { from, to, proposalId: proposal.id, proposedBy: proposal.proposedBy },
    );
    await this.store.record(change, { decided, ...(marker && { marker }) });
    return { operator: await this.#view(username), proposal: decided, applied: true };
  }

  /** Any admin withdraws a pending proposal (the proposer too: it gives nothing). */
  async cancel(
    actor: Principal,
    username: string,
    proposalId: string,
    reason: string,
  ): Promise<OperatorChangeResult> {
    const user = await this.#user(username);
    const proposal = await this.#pending(username, proposalId);
    const at = this.#now();
    const decided: OperatorProposal = { ...proposal, status: 'cancelled', decidedBy: actor, decidedAt: at };
    await this.store.record(
      this.#change(username, 'proposal-cancelled', actor, at, reason, {
        from: accessOf(user),
        to: accessOf(user),
        proposalId,
        proposedBy: proposal.proposedBy,
      }),
      { decided },
    );
    return { operator: await this.#view(username), proposal: decided, applied: true };
  }

  /** Removes groups at once: one admin may reduce access. */
  async revoke(
    actor: Principal,
    username: string,
    input: { groups: readonly OperatorGroup[]; reason: string },
  ): Promise<OperatorChangeResult> {
    const { user, changing: removed } = await this.#groupsChanging(actor, username, input.groups, 'remove');
    for (const group of removed) await this.directory.removeFromGroup(username, group);
    const to = { groups: user.groups.filter((group) => !removed.includes(group)), enabled: user.enabled };
    await this.store.record(
      this.#change(username, 'revoked', actor, this.#now(), input.reason, { from: accessOf(user), to }),
    );
    return { operator: await this.#view(username), applied: true };
  }

  /**
   * Refuses the operator's sign-in and, from this moment, every token and credential they hold (the marker the
   * API reads, recorded with the audit before the pool is told).
   */
  async disable(actor: Principal, username: string, reason: string): Promise<OperatorChangeResult> {
    const user = await this.#user(username);
    this.#notSelf(actor, user, 'disable themselves');
    if (!user.enabled) throw new InvalidTransitionError('operator', `${username} is disabled already`);
    await this.store.record(
      this.#change(username, 'disabled', actor, this.#now(), reason, {
        from: accessOf(user),
        to: { groups: user.groups, enabled: false },
      }),
      { marker: { sub: user.sub, disabled: true, username: user.username } },
    );
    await this.directory.disable(username);
    return { operator: await this.#view(username), applied: true };
  }

  /**
   * Lets a disabled operator sign in again: at once for one who holds no group that moves money, else proposed
   * for a second admin to confirm (it gives that access back).
   */
  async enable(actor: Principal, username: string, reason: string): Promise<OperatorChangeResult> {
    const user = await this.#user(username);
    this.#notSelf(actor, user, 'enable themselves');
    if (user.enabled) throw new InvalidTransitionError('operator', `${username} is enabled already`);
    const to = { groups: user.groups, enabled: true };
    if (movesMoney(user.groups)) {
      const proposal = await this.#propose(actor, username, 'enable', [], reason, accessOf(user), to);
      return { operator: await this.#view(username), proposal, applied: false };
    }
    await this.directory.enable(username);
    await this.store.record(
      this.#change(username, 'enabled', actor, this.#now(), reason, { from: accessOf(user), to }),
      { marker: { sub: user.sub, disabled: false } },
    );
    return { operator: await this.#view(username), applied: true };
  }

  async #propose(
    actor: Principal,
    username: string,
    kind: OperatorProposal['kind'],
    groups: readonly OperatorGroup[],
    reason: string,
    from: OperatorAccess,
    to: OperatorAccess = { groups: ordered([...from.groups, ...groups]), enabled: from.enabled },
  ): Promise<OperatorProposal> {
    const at = this.#now();
    const proposal: OperatorProposal = {
      id: ulid(new Date(at)),
      username,
      kind,
      groups,
      reason,
      proposedBy: actor,
      proposedAt: at,
      status: 'pending',
    };
    const action: OperatorAction = kind === 'grant' ? 'grant-proposed' : 'enable-proposed';
    await this.store.record(
      this.#change(username, action, actor, at, reason, { from, to, proposalId: proposal.id }),
      { proposal },
    );
    return proposal;
  }

  #change(
    username: string,
    action: OperatorAction,
    actor: Principal,
    at: string,
    reason: string,
    parts: Pick<OperatorChange, 'from' | 'to' | 'proposalId' | 'proposedBy'>,
  ): OperatorChange {
    return { id: ulid(new Date(at)), username, action, actor, at, reason, ...parts };
  }

  /** Refuses a change of the caller's own access, by their user pool `sub` (their stable identity). */
  #notSelf(actor: Principal, user: DirectoryUser, what: string): void {
    const sub = poolSubOf(actor);
    if (sub !== undefined && user.sub !== '' && sub === user.sub.toLowerCase()) {
      throw new OperatorChangeForbiddenError(`an admin may not ${what}: another admin must`);
    }
  }

  /**
   * The operator and the groups asked for that would change: those it is not in yet (`add`) or is in (`remove`),
   * in the groups' order.
   *
   * @throws OperatorChangeForbiddenError for an admin's own groups; InvalidTransitionError when none would change
   */
  async #groupsChanging(
    actor: Principal,
    username: string,
    groups: readonly OperatorGroup[],
    change: 'add' | 'remove',
  ): Promise<{ user: DirectoryUser; changing: OperatorGroup[] }> {
    const user = await this.#user(username);
    this.#notSelf(actor, user, 'change their own groups');
    const changing = ordered(groups).filter((group) => user.groups.includes(group) === (change === 'remove'));
    if (changing.length === 0) {
      throw new InvalidTransitionError(
        'operator',
        change === 'add'
          ? `${username} is in every group asked for already`
          : `${username} is in none of the groups asked for`,
      );
    }
    return { user, changing };
  }

  async #user(username: string): Promise<DirectoryUser> {
    const user = await this.directory.get(username);
    if (!user) throw new NotFoundError('operator', username, { detail: `no operator is named ${username}` });
    return user;
  }

  async #pending(username: string, proposalId: string): Promise<OperatorProposal> {
    const proposal = await this.store.proposal(username, proposalId);
    if (!proposal) {
      throw new NotFoundError('proposal', proposalId, {
        detail: `${username} has no proposal ${proposalId}`,
      });
    }
    if (proposal.status !== 'pending') {
      throw new InvalidTransitionError('proposal', `proposal ${proposalId} is ${proposal.status} already`);
    }
    return proposal;
  }

  async #view(username: string): Promise<OperatorView> {
    const user = await this.#user(username);
    return { ...user, pendingProposals: await this.store.pendingProposals(username) };
  }

  #now(): string {
    return this.clock.now().toISOString();
  }
}
