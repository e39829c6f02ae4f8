import type { Principal } from '../controls/index.js';
import { assertMayApprove, judgeApproval } from '../controls/index.js';
import type { Clock } from '../shared/clock.js';
import { InvalidTransitionError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { SendWindow } from '../shared/send-window.js';
import { describeRefund, type Refund, RefundStatus } from './model.js';
import { changedRefund, type RefundLimits, type RefundSender } from './refund-sender.js';
import { releases } from './send-outcome.js';

/** A second person's decision on a refund waiting for approval: what it goes through. */
export interface ApprovalDeps {
  readonly sender: Pick<RefundSender, 'change' | 'claimAndSend'>;
  readonly limits: RefundLimits;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * A second person approves `refund` (as just read), waiting in `pending_approval`; it is then sent at once (or
 * waits in `requested` while payouts are paused, or when `sendWindow` has passed: the sweep sends it). The approval
 * passes the control gate again with the limits in force now, since it releases the money and the maximum may
 * have been lowered while the refund waited: above it the approval is refused, and the refund stays
 * `pending_approval`, unchanged and unsent, to be cancelled (or approved once the maximum allows it). At or above
 * the second-approval threshold the first approval is only recorded (`firstApproval`); a second approver, another
 * person, sends it.
 *
 * @throws ApprovalForbiddenError when the approver is the requester (by stable identity) or not a person, the
 *   amount is above the approver's limit, or the approver gave the first approval already
 * @throws InvalidTransitionError when the refund is not waiting for approval
 * @throws ValidationError naming `amount` when the amount is above the per-payout maximum in force now
 */
export async function approveRefund(
  { sender, limits, clock, logger }: ApprovalDeps,
  refund: Refund,
  approver: Principal,
  sendWindow: SendWindow | undefined,
): Promise<Refund> {
  assertAwaitingDecision(refund, approver, 'approved');
  const { reason, releases: released } = judgeApproval(limits, describeRefund(refund, approver), {
    what: `refund ${refund.id} (${refund.amountKobo} kobo)`,
    stays: RefundStatus.PendingApproval,
    approver,
    firstApproval: refund.firstApproval,
    logger,
  });
  if (!released) {
    // The first of two: recorded and audited; the refund keeps waiting, unsent.
    return changedRefund(
      await sender.change(
        refund,
        { firstApproval: { actor: approver, at: clock.now().toISOString() } },
        { actor: approver, reason },
      ),
    );
  }
  const approved = changedRefund(
    await sender.change(
      refund,
      { status: RefundStatus.Requested, approvedBy: approver },
      { actor: approver, reason },
    ),
  );
  return sender.claimAndSend(approved, sendWindow);
}

/**
 * Rejects `refund` (as just read), waiting for approval: a second person's refusal, with the reason, recorded on
 * it (`rejection`) and in its audit. It ends `cancelled`, for good, and gives back its share of the transaction's
 * total; nothing is sent.
 *
 * @throws ApprovalForbiddenError (its requester, or not a person); InvalidTransitionError unless
 *   pending_approval; ConcurrentModificationError when another command changed it meanwhile
 */
export async function rejectRefund(
  { sender, clock }: ApprovalDeps,
  refund: Refund,
  approver: Principal,
  reason: string,
): Promise<Refund> {
  assertAwaitingDecision(refund, approver, 'rejected');
  const release = releases(refund, { total: true });
  const rejection = { actor: approver, reason, at: clock.now().toISOString() };
  return changedRefund(
    await sender.change(
      refund,
      { status: RefundStatus.Cancelled, rejection, ...release.changes },
      { actor: approver, reason: `rejected by ${approver.id}: ${reason}`, ...release.change },
    ),
  );
}

/**
 * `approver` may decide `refund`: it waits in `pending_approval`, and it is not their own.
 *
 * @throws InvalidTransitionError unless pending_approval; ApprovalForbiddenError (its requester, or not a person)
 */
function assertAwaitingDecision(
  refund: Refund,
  approver: Principal,
  decision: 'approved' | 'rejected',
): void {
  if (refund.status !== RefundStatus.PendingApproval) {
    throw new InvalidTransitionError(
      'refund',
      `refund ${refund.id} is ${refund.status}; only a refund in pending_approval can be ${decision}`,
    );
  }
  assertMayApprove(refund.requestedBy, approver, `refund ${refund.id}`, decision);
}
