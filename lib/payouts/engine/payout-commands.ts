import type { Principal } from '../../controls/index.js';
import { assertMayApprove, judgeApproval } from '../../controls/index.js';
import { ConcurrentModificationError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { invalidPayoutTransition, ResolutionMismatchError } from '../errors.js';
import { describePayout } from '../instruction.js';
import { type Payout, PayoutStatus, unrecoveredDouble } from '../model.js';
import { canTransition } from '../transitions.js';
import { buildTransition, type EngineContext, type SendingContext, type TransitionSpec } from './context.js';
import type { ResolutionDecision } from './resolution-proposal.js';
import { resolveAsNotPaid } from './resolve-as-not-paid.js';
import { resolveAsPaid, resolveAsRecovered } from './resolve-as-paid.js';

async function load(ctx: EngineContext, id: string): Promise<Payout> {
  const payout = await ctx.store.get(id);
  if (!payout) throw new NotFoundError('payout', id);
  return payout;
}

/** Applies a person's command; a concurrent change surfaces as the typed error, never as a silent overwrite. */
async function apply(
  ctx: EngineContext,
  payout: Payout,
  spec: TransitionSpec,
  keepsStatus = false,
): Promise<Payout> {
  // `keepsStatus`: a change within the status (a first approval), which is no transition between statuses; any
  // other command to the status it is in (a cancel of a cancelled payout) is refused as before.
  if (!(keepsStatus && spec.to === payout.status) && !canTransition(payout.status, spec.to))
    throw invalidPayoutTransition(payout, spec.to);
  try {
    return await ctx.store.transition(buildTransition(payout, spec, ctx.clock.now()));
  } catch (error) {
    if (!(error instanceof ConcurrentModificationError)) throw error;
    const current = await load(ctx, payout.id);
    throw invalidPayoutTransition(
      current,
      spec.to,
      `payout ${payout.id} changed to ${current.status} meanwhile`,
    );
  }
}

/**
 * Approves a payout waiting in `pending_approval` (four eyes: never by its requester), after passing the control
 * gate again with the limits in force now (its creation's entry point): an approval releases the money, and the
 * maximum may have been lowered while the payout waited. Above it the approval is refused and the payout stays
 * `pending_approval`, unchanged, to be cancelled (or approved once the maximum allows it). At or above the
 * second-approval threshold the first approval is recorded (`firstApproval`) and the payout keeps waiting; a
 * second approver, another person, releases it.
 *
 * @throws ApprovalForbiddenError (the requester, not a person, above the approver's limit, the first approver
 *   again), InvalidTransitionError, ValidationError naming `amount` when above the maximum
 * @example await approvePayout(ctx, '01J…', { id: 'alice', kind: 'user' });
 */
export async function approvePayout(ctx: EngineContext, id: string, approver: Principal): Promise<Payout> {
  const payout = await load(ctx, id);
  if (payout.status !== PayoutStatus.PendingApproval) {
    throw invalidPayoutTransition(
      payout,
      PayoutStatus.Pending,
      `payout ${id} is ${payout.status}, not pending_approval`,
    );
  }
  assertMayApprove(payout.requestedBy, approver, `payout ${id}`);
  const { reason, releases } = judgeApproval(ctx.config, describePayout(payout, approver), {
    what: `payout ${id} (${payout.amountKobo} kobo)`,
    stays: PayoutStatus.PendingApproval,
    approver,
    firstApproval: payout.firstApproval,
    logger: ctx.logger,
  });
  if (!releases) {
    // The first of two: recorded (and audited), conditional on the version read, so of two first approvals at
    // once one is recorded and the other answers 409; the payout keeps waiting.
    return apply(
      ctx,
      payout,
      {
        to: PayoutStatus.PendingApproval,
        actor: approver,
        reason,
        changes: { firstApproval: { actor: approver, at: ctx.clock.now().toISOString() } },
      },
      true,
    );
  }
  return apply(ctx, payout, {
    to: PayoutStatus.Pending,
    actor: approver,
    reason,
    changes: { approvedBy: approver },
  });
}

/**
 * Rejects a payout waiting in `pending_approval`: a second person's refusal, with the reason, recorded on it
 * (`rejection`) and in its audit. It ends `cancelled`, for good: nothing is sent and no approval can follow. Its
 * requester withdraws their own with a cancel; a rejection is someone else's decision, as an approval is.
 *
 * @throws ApprovalForbiddenError (its requester, or not a person), InvalidTransitionError unless pending_approval
 * @example await rejectPayout(ctx, '01J…', { id: 'bob', kind: 'user' }, 'beneficiary not on the vendor list');
 */
export async function rejectPayout(
  ctx: EngineContext,
  id: string,
  approver: Principal,
  reason: string,
): Promise<Payout> {
  const payout = await load(ctx, id);
  if (payout.status !== PayoutStatus.PendingApproval) {
    throw invalidPayoutTransition(
      payout,
      PayoutStatus.Cancelled,
      `payout ${id} is ${payout.status}; only a payout in pending_approval can be rejected`,
    );
  }
  assertMayApprove(payout.requestedBy, approver, `payout ${id}`, 'rejected');
  return apply(ctx, payout, {
    to: PayoutStatus.Cancelled,
    actor: approver,
    reason: `rejected by ${approver.id}: ${reason}`,
    changes: { rejection: { actor: approver, reason, at: ctx.clock.now().toISOString() } },
  });
}

/** Cancels a payout that has not been submitted; after submission money may have moved, so it is refused. */
export async function cancelPayout(
  ctx: EngineContext,
  id: string,
  actor: Principal,
  reason?: string,
): Promise<Payout> {
  const payout = await load(ctx, id);
  return apply(ctx, payout, {
    to: PayoutStatus.Cancelled,
    actor,
    reason: reason ? `cancelled by ${actor.id}: ${reason}` : `cancelled by ${actor.id}`,
  });
}

/**
 * A decision by two people on a payout in `needs_review`, or in `unknown` without waiting for the reconciler's
 * watch to end, on the provider's records read at each call (docs/payout-engine.md, "Resolving a payout"). The
 * first call records a proposal (`resolutionProposal`, the payout keeps its status); the same decision sent by a
 * different person, by stable identity, applies it.
 *
 * - `succeeded` names the provider transaction that proves it (`resolveAsPaid`); `force` overrides a record that
 *   does not prove it.
 * - `failed` needs the provider to show no record for every attempt marker (`resolveAsNotPaid`); `force`
 *   overrides a record, which then keeps the cap reservation counted.
 * - `paid_twice_recovered` closes a payout paid twice, with the reference of how the extra money was recovered
 *   (`resolveAsRecovered`): it ends `succeeded`, every payment still counted on the cap. Nothing else closes one.
 *
 * @throws InvalidTransitionError unless `needs_review` or `unknown`; ValidationError for a blank note or
 *   reference; ResolutionMismatchError; ApprovalForbiddenError; ProviderLookupFailedError
 */
export async function resolveReview(
  ctx: SendingContext,
  id: string,
  actor: Principal,
  decision: ResolutionDecision,
): Promise<Payout> {
  const payout = await load(ctx, id);
  if (payout.status !== PayoutStatus.NeedsReview && payout.status !== PayoutStatus.Unknown) {
    throw invalidPayoutTransition(
      payout,
      decision.outcome === 'failed' ? PayoutStatus.Failed : PayoutStatus.Succeeded,
      `payout ${id} is ${payout.status}; only a payout in needs_review or unknown can be resolved`,
    );
  }
  requireText('note', decision.note, 'must explain the decision');
  if (decision.outcome === 'paid_twice_recovered') {
    requireText(
      'recoveryReference',
      decision.recoveryReference,
      'must name how the extra money was recovered',
    );
    return resolveAsRecovered(ctx, payout, actor, decision);
  }
  if (unrecoveredDouble(payout)) {
    const paid = payout.paidTwice;
    throw new ResolutionMismatchError(
      `outcome: payout ${id} was paid twice (attempts ${paid?.attempts.join(', ')}: ${paid?.transactionIds.join(', ')}); it is closed only as paid_twice_recovered, with the recoveryReference of how the extra money was recovered`,
    );
  }
  if (decision.outcome === 'succeeded') return resolveAsPaid(ctx, payout, actor, decision);
  return resolveAsNotPaid(ctx, payout, actor, decision);
}

function requireText(path: string, value: string, message: string): void {
  if (value.trim() === '') throw new ValidationError(`${path}: ${message}`, [{ path, message }]);
}
