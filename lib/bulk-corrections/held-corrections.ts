import {
  assertMayApprove,
  DailyCapExceededError,
  type Judgement,
  judgeApproval,
  type Principal,
} from '../controls/index.js';
import { InvalidTransitionError, NotFoundError, ValidationError } from '../shared/errors.js';
import type { CorrectionContext } from './correction-context.js';
import { capExceeded, pausedResult, reservationOf } from './correction-controls.js';
import { describeCorrection } from './correction-instruction.js';
import {
  CorrectionOutcome,
  type CorrectionResult,
  type HeldCancellation,
  type PendingCorrection,
  PendingCorrectionStatus,
} from './model.js';
import { CorrectionFieldsSchema } from './schemas.js';

/**
 * A second person approves a held correction, which is then sent once (concurrent approvals send it once).
 * The approval passes the control gate again, weighed as at its request but with the limits in force now and
 * the item as known now: it releases the money, and the maximum may have been lowered while it waited. Above it
 * the approval answers `invalid` naming `amount` (a 400), and the correction stays `pending_approval`, nothing
 * claimed or sent. An amount still not known here fails closed as at the request: the approver stands in for
 * both checks, so the approval goes ahead. At or above the second-approval threshold (or of an amount not known
 * here, while that threshold is set) the first approval is only recorded (`firstApproval`) and it answers
 * `pending_approval`; a second approver, another person, sends it.
 *
 * @throws NotFoundError; InvalidTransitionError when it is approved or cancelled already; ApprovalForbiddenError
 *   (the requester, not a person, above the approver's limit, the first approver again)
 */
export async function approveHeld(
  ctx: CorrectionContext,
  id: string,
  correctionId: string,
  approver: Principal,
): Promise<CorrectionResult> {
  const held = await ctx.store.getPending(id, correctionId);
  if (!held)
    throw new NotFoundError('correction', correctionId, {
      detail: `bulk payout item ${id} has no correction ${correctionId}`,
    });
  const what = `correction ${correctionId} of bulk payout item ${id}`;
  // A decided correction is refused as such, not weighed by the gate again (the claim below stays the check
  // that counts when two approvals race).
  if (held.status !== PendingCorrectionStatus.PendingApproval)
    throw new InvalidTransitionError('correction', `${what} is no longer waiting for approval`);
  assertMayApprove(held.requestedBy, approver, what);
  const fields = CorrectionFieldsSchema.parse(held.fields);
  let reason: string;
  let judgement: Judgement;
  let releases: boolean;
  try {
    // The same description as at the request, but released by the approver: a redirect the requester entered
    // now has two people behind it, and an amount the requester set counts as known.
    const instruction = describeCorrection(fields, await ctx.store.get(id), held.requestedBy, approver);
    ({ judgement, reason, releases } = judgeApproval(ctx.limits, instruction, {
      what,
      stays: PendingCorrectionStatus.PendingApproval,
      approver,
      firstApproval: held.firstApproval,
      logger: ctx.logger,
    }));
  } catch (error) {
    // Nothing claimed, written or sent; corrections answer their refusals as outcomes.
    if (error instanceof ValidationError) return { outcome: CorrectionOutcome.Invalid, issues: error.issues };
    throw error;
  }
  if (!releases) {
    // The first of two: recorded on the held correction (nothing claimed or sent); it keeps waiting.
    const correction = await ctx.store.recordFirstApproval(held, {
      actor: approver,
      at: ctx.clock.now().toISOString(),
    });
    ctx.logger.info('held correction approved first', { bulkPayoutItemId: id, correctionId, reason });
    return { outcome: CorrectionOutcome.PendingApproval, correction };
  }
  // Read before the claim too, so that approving while paused writes no claim only to give it back.
  const pausedBefore = await pausedResult(ctx);
  if (pausedBefore) return pausedBefore;
  const now = ctx.clock.now();
  const approvedAt = now.toISOString();
  const cap = reservationOf(ctx, judgement, now);
  if (cap && cap.deltaKobo > ctx.limits.dailyCapKobo) return capExceeded(ctx, id, cap);
  try {
    await ctx.store.claimApproval(held, approver, approvedAt, cap);
  } catch (error) {
    // Nothing claimed or reserved: the correction still waits, and may be approved once the day has room.
    if (error instanceof DailyCapExceededError) return capExceeded(ctx, id, cap);
    throw error;
  }
  // Read again once the claim committed: a pause that landed after the read above is seen here, so once
  // `pausePayouts` returns no approval claimed afterwards is sent (the payout engine's rule, `pausedNow`).
  const paused = await pausedResult(ctx);
  if (paused) {
    // Given back unsent, with its reservation: the correction waits for approval again, and any person but the
    // requester may approve it after resume.
    await ctx.store.releaseApproval(held, approvedAt, cap);
    return paused;
  }
  ctx.logger.info('held correction approved', {
    bulkPayoutItemId: id,
    correctionId,
    // Says when the limits in force no longer ask for a second person (it is approved all the same).
    reason,
  });
  const result = await ctx.sendReserved(id, fields, held.requestedBy, cap, approver);
  await ctx.store.recordOutcome(id, correctionId, result.outcome);
  if (held.job) await ctx.heldJobRows?.recordHeldOutcome(held.job, result);
  return result;
}

/**
 * Withdraws a correction held for a second person, which is then never sent. Anyone may withdraw it, the
 * requester too: it moves no money (as for a refund's cancel). Only `pending_approval` can be withdrawn, and the
 * write is conditional on it, so a cancel racing an approval loses to an approval's claim that committed first
 * (and the other way round): exactly one of them wins. A job row it came from ends `cancelled`.
 *
 * @throws NotFoundError; InvalidTransitionError when it is approved or cancelled already
 */
export async function cancelHeld(
  ctx: CorrectionContext,
  id: string,
  correctionId: string,
  actor: Principal,
  reason?: string,
): Promise<PendingCorrection> {
  const held = await ctx.store.getPending(id, correctionId);
  if (!held)
    throw new NotFoundError('correction', correctionId, {
      detail: `bulk payout item ${id} has no correction ${correctionId}`,
    });
  if (held.status !== PendingCorrectionStatus.PendingApproval)
    throw new InvalidTransitionError(
      'correction',
      `correction ${correctionId} of bulk payout item ${id} is ${held.status}; only a correction in pending_approval can be cancelled`,
    );
  const cancellation: HeldCancellation = {
    cancelledBy: actor,
    cancelledAt: ctx.clock.now().toISOString(),
    ...(reason !== undefined && { cancelReason: reason }),
  };
  const cancelled = await ctx.store.cancelHeld(held, cancellation);
  // The audit of an item lists corrections sent to the provider; a withdrawal sent nothing, so who withdrew it,
  // when and why are recorded on the held correction itself, and logged.
  ctx.logger.info('held correction cancelled', {
    bulkPayoutItemId: id,
    correctionId,
    cancelledBy: actor.id,
  });
  if (held.job) await ctx.heldJobRows?.recordHeldCancellation(held.job, cancellation);
  return cancelled;
}
