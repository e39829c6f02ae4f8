import { ConcurrentModificationError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { invalidPayoutTransition } from '../errors.js';
import { assertMayApprove, judgeApproval } from '../gate.js';
import { describePayout } from '../instruction.js';
import { type Payout, PayoutStatus, type Principal } from '../model.js';
import { canTransition } from '../transitions.js';
import { buildTransition, type EngineContext, type SendingContext, type TransitionSpec } from './context.js';
import { resolveAsPaid } from './resolve-as-paid.js';
import { watchOnResolution } from './watch-attempts.js';

async function load(ctx: EngineContext, id: string): Promise<Payout> {
  const payout = await ctx.store.get(id);
  if (!payout) throw new NotFoundError('payout', id);
  return payout;
}

/** Applies a person's command; a concurrent change surfaces as the typed error, never as a silent overwrite. */
async function apply(ctx: EngineContext, payout: Payout, spec: TransitionSpec): Promise<Payout> {
  if (!canTransition(payout.status, spec.to)) throw invalidPayoutTransition(payout, spec.to);
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
 * `pending_approval`, unchanged, to be cancelled (or approved once the maximum allows it).
 *
 * @throws ApprovalForbiddenError, InvalidTransitionError, ValidationError naming `amount` when above the maximum
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
  const { reason } = judgeApproval(ctx.config, describePayout(payout, approver), {
    what: `payout ${id} (${payout.amountKobo} kobo)`,
    stays: PayoutStatus.PendingApproval,
    approver,
    logger: ctx.logger,
  });
  return apply(ctx, payout, {
    to: PayoutStatus.Pending,
    actor: approver,
    reason,
    changes: { approvedBy: approver },
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
 * A person's decision on a payout in `needs_review`, after checking the provider's records by hand.
 * `succeeded` requires the provider transaction id that proves it, and is verified against the provider's
 * record (see `resolveAsPaid`); `force` with a second person's confirmation overrides a failed verification.
 */
export async function resolveReview(
  ctx: SendingContext,
  id: string,
  actor: Principal,
  decision:
    | { outcome: 'succeeded'; transactionId: string; note: string; force?: boolean }
    | { outcome: 'failed'; note: string },
): Promise<Payout> {
  const payout = await load(ctx, id);
  if (payout.status !== PayoutStatus.NeedsReview) {
    throw invalidPayoutTransition(
      payout,
      decision.outcome === 'succeeded' ? PayoutStatus.Succeeded : PayoutStatus.Failed,
      `payout ${id} is ${payout.status}, not needs_review`,
    );
  }
  if (decision.note.trim() === '')
    throw new ValidationError('note: must explain the decision', [
      { path: 'note', message: 'must explain the decision' },
    ]);
  if (decision.outcome === 'succeeded') return resolveAsPaid(ctx, payout, actor, decision);
  return apply(ctx, payout, {
    to: PayoutStatus.Failed,
    actor,
    reason: `resolved as not paid by ${actor.id}: ${decision.note}`,
    changes: {
      failure: { code: 'RESOLVED_NOT_PAID', message: decision.note },
      resolutionProposal: undefined,
      // An attempt in flight that nothing decided is watched: should it have paid after all, the watch reports it.
      ...watchOnResolution(ctx, payout, ctx.clock.now(), payout.watchedAttempts ?? []),
    },
    ...(holdsCapReservation(payout) && {
      cap: { capKey: payout.capKey, day: payout.capDay, deltaKobo: -payout.amountKobo },
    }),
  });
}

/**
 * Whether a payout in `needs_review` still holds its claim's cap reservation, which resolving it as not paid gives
 * back. One that failed before it was reopened gave it back then (`failure` never leaves a payout, and nothing
 * reserves again after it), and a late record that reopened it was counted again because that money left: giving
 * it back once more would count money that left as not spent.
 */
function holdsCapReservation(payout: Payout): payout is Payout & { capDay: string } {
  return payout.capDay !== undefined && payout.failure === undefined;
}
