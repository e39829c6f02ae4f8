import type { Principal } from '../controls/index.js';
import { assertMayApprove } from '../controls/index.js';
import type { Clock } from '../shared/clock.js';
import { InvalidTransitionError, ValidationError } from '../shared/errors.js';
import { type Refund, type RefundResolution, type RefundResolutionProposal, RefundStatus } from './model.js';
import { changedRefund, type RefundSender } from './refund-sender.js';
import { releases } from './send-outcome.js';

/** What settling an unknown refund changes it through: the sender's audited change, and the clock. */
export interface ResolutionDeps {
  readonly sender: Pick<RefundSender, 'change'>;
  readonly clock: Clock;
}

/**
 * A person settles an `unknown` refund after checking the provider's records by hand. The provider has no read of
 * a refund (lib/provider/CONTRACT.md), so nothing can verify the word given: like a forced payout resolution it
 * takes two people. The first call records the decision as `resolutionProposal` (`applied: false`, the refund
 * stays `unknown`); the same decision (outcome and provider refund id) by another person, by stable identity
 * (`assertMayApprove`), applies it. Another decision replaces the proposal, by whoever sends it.
 *
 * - `not_sent`: the refund is `cancelled` (`failure` RESOLVED_NOT_SENT), giving back its share of the
 *   transaction's refunded total and the day's cap reservation it holds, so the refund can be asked for again.
 * - `accepted`: the refund is `pending` with the provider's refund id; it keeps both, since the money left.
 *
 * @throws InvalidTransitionError unless the refund is `unknown`; ValidationError for a blank note;
 *   ApprovalForbiddenError when the proposer (or a system) confirms; ConcurrentModificationError when the refund
 *   changed meanwhile
 */
export async function resolveUnknownRefund(
  { sender, clock }: ResolutionDeps,
  refund: Refund,
  actor: Principal,
  decision: RefundResolution,
): Promise<{ refund: Refund; applied: boolean }> {
  const { id } = refund;
  if (refund.status !== RefundStatus.Unknown) {
    throw new InvalidTransitionError(
      'refund',
      `refund ${id} is ${refund.status}; only an unknown refund can be resolved`,
    );
  }
  if (decision.note.trim() === '') {
    throw new ValidationError('note: must explain the decision', [
      { path: 'note', message: 'must explain the decision' },
    ]);
  }
  const proposal = refund.resolutionProposal;
  if (!proposal || !sameResolution(proposal, decision)) {
    return { refund: await proposeResolution(sender, clock, refund, actor, decision), applied: false };
  }
  assertMayApprove(proposal.proposedBy, actor, `the resolution of refund ${id}`);
  return { refund: await applyResolution(sender, refund, proposal, actor, decision), applied: true };
}

async function proposeResolution(
  sender: ResolutionDeps['sender'],
  clock: Clock,
  refund: Refund,
  actor: Principal,
  decision: RefundResolution,
): Promise<Refund> {
  const resolutionProposal: RefundResolutionProposal = {
    ...decision,
    proposedBy: actor,
    proposedAt: clock.now().toISOString(),
  };
  return changedRefund(
    await sender.change(
      refund,
      { resolutionProposal },
      {
        actor,
        reason: `${actor.id} proposes to resolve it as ${describeResolution(decision)} (${decision.note}); a second person must confirm`,
      },
    ),
  );
}

async function applyResolution(
  sender: ResolutionDeps['sender'],
  refund: Refund,
  proposal: RefundResolutionProposal,
  actor: Principal,
  decision: RefundResolution,
): Promise<Refund> {
  const reason = `resolved as ${describeResolution(decision)}: proposed by ${proposal.proposedBy.id} (${proposal.note}), confirmed by ${actor.id} (${decision.note})`;
  const applied =
    decision.outcome === 'accepted'
      ? await sender.change(
          refund,
          {
            status: RefundStatus.Pending,
            providerRefundId: decision.providerRefundId,
            failure: undefined,
            resolutionProposal: undefined,
          },
          // Money left: the share of the transaction's total and the cap reservation stay counted.
          { actor, reason },
        )
      : await cancelAsNotSent(sender, refund, actor, reason, decision.note);
  return changedRefund(applied);
}

/** Nothing reached the provider: as a cancellation, the share of the total and the cap reservation go back. */
function cancelAsNotSent(
  sender: ResolutionDeps['sender'],
  refund: Refund,
  actor: Principal,
  reason: string,
  note: string,
) {
  const release = releases(refund, { total: true });
  return sender.change(
    refund,
    {
      status: RefundStatus.Cancelled,
      failure: { code: 'RESOLVED_NOT_SENT', message: note },
      resolutionProposal: undefined,
      ...release.changes,
    },
    { actor, reason, ...release.change },
  );
}

/** Whether a second call decides what the proposal does (its note may differ: each person writes their own). */
function sameResolution(proposal: RefundResolution, decision: RefundResolution): boolean {
  if (proposal.outcome === 'accepted' && decision.outcome === 'accepted') {
    return proposal.providerRefundId === decision.providerRefundId;
  }
  return proposal.outcome === decision.outcome;
}

function describeResolution(decision: RefundResolution): string {
  return decision.outcome === 'accepted'
    ? `accepted by the provider (refund ${decision.providerRefundId})`
    : 'not sent (cancelled, its share of the total and its cap reservation given back)';
}
