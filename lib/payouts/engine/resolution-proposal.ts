import type { Principal } from '../../controls/index.js';
import { assertMayApprove } from '../../controls/index.js';
import type { Payout, ResolutionOutcome, ResolutionProposal } from '../model.js';
import { buildTransition, type EngineContext } from './context.js';

/** A person's decision on a payout in `needs_review` or `unknown`, as the API and the CLI send it. */
export type ResolutionDecision =
  | {
      readonly outcome: 'succeeded';
      readonly transactionId: string;
      readonly note: string;
      readonly force?: boolean;
    }
  | { readonly outcome: 'failed'; readonly note: string; readonly force?: boolean }
  | {
      readonly outcome: 'paid_twice_recovered';
      readonly recoveryReference: string;
      readonly note: string;
      readonly transactionId?: string;
    };

/** The outcome a stored proposal names (one stored before outcomes were named was a forced `succeeded`). */
function outcomeOf(proposal: ResolutionProposal): ResolutionOutcome {
  return proposal.outcome ?? 'succeeded';
}

/** Whether `decision` is the one `proposal` records: outcome, the record or reference named, and `force`. */
function sameDecision(proposal: ResolutionProposal, decision: ResolutionDecision): boolean {
  if (outcomeOf(proposal) !== decision.outcome) return false;
  switch (decision.outcome) {
    case 'succeeded':
      // A stored proposal without `forced` (before every resolution took two people) was a forced one.
      return (
        proposal.transactionId === decision.transactionId &&
        (proposal.forced ?? proposal.outcome === undefined) === (decision.force ?? false)
      );
    case 'failed':
      return (proposal.forced ?? false) === (decision.force ?? false);
    case 'paid_twice_recovered':
      return (
        proposal.recoveryReference === decision.recoveryReference &&
        proposal.transactionId === decision.transactionId
      );
  }
}

/**
 * The proposal `decision` confirms, or undefined when it must be proposed first (none waits, or the one waiting
 * is another decision, which this one replaces). Four eyes: the confirmer is a person other than the proposer,
 * by stable identity (`assertMayApprove`).
 *
 * @throws ApprovalForbiddenError when the proposer (under any spelling) or a system confirms
 */
export function proposalConfirmedBy(
  payout: Payout,
  actor: Principal,
  decision: ResolutionDecision,
): ResolutionProposal | undefined {
  const proposal = payout.resolutionProposal;
  if (!proposal || !sameDecision(proposal, decision)) return undefined;
  assertMayApprove(proposal.proposedBy, actor, `the resolution of payout ${payout.id}`);
  return proposal;
}

/** How an audit reason names a decision: `as not paid`, `as paid with transaction …`, … */
export function describeDecision(decision: ResolutionDecision): string {
  const forced = 'force' in decision && decision.force ? ' by force' : '';
  switch (decision.outcome) {
    case 'succeeded':
      return `as paid${forced} with transaction ${decision.transactionId}`;
    case 'failed':
      return `as not paid${forced}`;
    case 'paid_twice_recovered':
      return `as paid twice and recovered (${decision.recoveryReference})`;
  }
}

/**
 * Records `decision` as the payout's proposal (the payout keeps its status, and the proposal is audited); a
 * second person sending the same decision applies it. `mismatch` is what the provider's records showed against
 * a forced decision. A change made meanwhile surfaces as ConcurrentModificationError: a 409, nothing lost.
 */
export function proposeResolution(
  ctx: EngineContext,
  payout: Payout,
  actor: Principal,
  decision: ResolutionDecision,
  evidence: { readonly shows: string; readonly mismatch?: string },
): Promise<Payout> {
  const now = ctx.clock.now();
  const forced = 'force' in decision && decision.force === true;
  const resolutionProposal: ResolutionProposal = {
    outcome: decision.outcome,
    ...('transactionId' in decision &&
      decision.transactionId !== undefined && { transactionId: decision.transactionId }),
    ...(decision.outcome === 'paid_twice_recovered' && { recoveryReference: decision.recoveryReference }),
    ...(forced && { forced }),
    note: decision.note,
    proposedBy: actor,
    proposedAt: now.toISOString(),
    ...(evidence.mismatch !== undefined && { mismatch: evidence.mismatch }),
  };
  return ctx.store.transition(
    buildTransition(
      payout,
      {
        to: payout.status,
        actor,
        reason: `${actor.id} proposes to resolve it ${describeDecision(decision)} (${decision.note}); the provider shows ${evidence.shows}; a second person must confirm`,
        changes: { resolutionProposal },
        details: { proposedOutcome: decision.outcome, ...(forced && { forced }) },
      },
      now,
    ),
  );
}
