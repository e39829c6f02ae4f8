import { ValidationError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { ApprovalForbiddenError } from './errors.js';
import { sameIdentity } from './identity.js';
import type { Principal } from './model.js';

/**
 * Every way money can be instructed or a money record changed. docs/controls.md has one row per entry point
 * with the controls it passes, and test/controls/every-entry-point.test.ts fails when a path that reaches
 * the provider's money calls is not one of these.
 */
export const MoneyEntryPoint = {
  ApiPayout: 'api-payout',
  RecurringRule: 'recurring-rule',
  RecurringOccurrence: 'recurring-occurrence',
  EventPayout: 'event-payout',
  Settlement: 'settlement',
  BulkCorrection: 'bulk-correction',
  Refund: 'refund',
  Resolution: 'resolution',
} as const;
export type MoneyEntryPoint = (typeof MoneyEntryPoint)[keyof typeof MoneyEntryPoint];

/** The amount limits of the gate; pause and the daily cap are checked where the money is committed. */
export interface GateLimits {
  /** The largest single instruction accepted, in kobo. */
  readonly maxPayoutKobo: number;
  /** Instructions of at least this amount wait for a second person's approval. */
  readonly approvalThresholdKobo: number;
}

export interface GateRequest {
  readonly entryPoint: MoneyEntryPoint;
  /**
   * The amount the instruction sends, in kobo; `undefined` when it is not known here (a bulk item whose
   * destination changes and whose amount the service never saw). An unknown amount is never taken as 0.
   */
  readonly amountKobo: number | undefined;
  /** The request field that carries the amount, named in a refusal (`amount`, `detail.payout.amount`). */
  readonly amountPath?: string;
  /** Something other than the amount demands a second person (a bulk item's destination changed). */
  readonly approvalReason?: string;
}

export interface GateDecision {
  /** Why a second person must approve before any money moves; undefined when nobody else needs to. */
  readonly approvalRequired?: string;
}

/**
 * The one control gate: the per-payout maximum and the approval threshold, the same for every entry point.
 * It fails closed on an unknown amount: neither the maximum nor the threshold can be shown to hold, so a second
 * person must approve, whatever the limits (docs/bulk-corrections.md, "Controls").
 *
 * @throws ValidationError naming the amount's field when the amount is above the maximum
 */
export function admit(limits: GateLimits, request: GateRequest): GateDecision {
  if (request.amountKobo === undefined) {
    const unknown =
      'the amount it sends is not known here, so neither the per-payout maximum nor the approval threshold could be checked';
    return { approvalRequired: request.approvalReason ? `${request.approvalReason}; ${unknown}` : unknown };
  }
  const path = request.amountPath ?? 'amount';
  if (request.amountKobo > limits.maxPayoutKobo) {
    const message = `must be at most ${limits.maxPayoutKobo} kobo (the per-payout maximum)`;
    throw new ValidationError(`${path}: ${message}`, [{ path, message }]);
  }
  if (reachesApprovalThreshold(limits, request.amountKobo)) {
    return { approvalRequired: `at or above the approval threshold of ${limits.approvalThresholdKobo} kobo` };
  }
  return request.approvalReason ? { approvalRequired: request.approvalReason } : {};
}

/** An approval about to release an instruction, as the gate weighs it again (`admitApproval`). */
export interface PendingApproval {
  /** The instruction, named in a refusal and its log line: `payout 01J… (150000 kobo)`. */
  readonly what: string;
  /** The status the instruction stays in when the approval is refused. */
  readonly stays: string;
  /** What a refusal tells the approver to do instead; by default, cancel it or wait for the maximum. */
  readonly instead?: string;
  readonly approver: Principal;
  /** Where a refusal is logged: it changes nothing, so no audit event records it. */
  readonly logger: Pick<Logger, 'warn'>;
}

/**
 * The gate again at an approval (docs/controls.md, "again at approval"): an approval releases the money, so it
 * runs `admit` with the limits in force when it is given, through the entry point the instruction came in by, not
 * those it was admitted under: operators may have lowered the maximum while it waited. Returns the decision and
 * the approval's audit reason, which says so when the limits in force no longer ask for a second person (the
 * threshold was raised meanwhile: approved all the same, since a person asked to).
 *
 * @throws ValidationError naming the amount's field, said for the approver, who sent no amount: which instruction,
 *   that the limits in force refuse it, and that nothing changed (it stays `approval.stays`)
 * @example const { reason } = admitApproval(limits, { entryPoint, amountKobo }, { what, stays, approver, logger });
 */
export function admitApproval(
  limits: GateLimits,
  request: GateRequest,
  approval: PendingApproval,
): { readonly decision: GateDecision; readonly reason: string } {
  let decision: GateDecision;
  try {
    decision = admit(limits, request);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    approval.logger.warn('approval refused by the gate', {
      instruction: approval.what,
      approvedBy: approval.approver.id,
    });
    const instead = approval.instead ?? 'cancel it, or approve it once the maximum allows it';
    throw ValidationError.of(
      error.issues.map((issue) => ({
        path: issue.path,
        message: `${issue.message}: ${approval.what} cannot be approved under the limits in force now; it stays ${approval.stays} and nothing was sent (${instead})`,
      })),
      { cause: error },
    );
  }
  const approved = `approved by ${approval.approver.id}`;
  return { decision, reason: decision.approvalRequired ? approved : `${approved} (${NO_LONGER_REQUIRED})` };
}

/** Noted in the audit of an approval the limits in force no longer ask for (`admitApproval`). */
export const NO_LONGER_REQUIRED = 'the limits in force now no longer ask for a second person';

/**
 * True when an amount needs a second person's approval by itself. The gate's own rule, for the places that show
 * or release what was admitted earlier (the sweep releasing a scheduled payout, the future-payouts view).
 */
export function reachesApprovalThreshold(
  limits: Pick<GateLimits, 'approvalThresholdKobo'>,
  amountKobo: number,
): boolean {
  return amountKobo >= limits.approvalThresholdKobo;
}

/**
 * Four eyes: an approver is a person, and not the person (by stable identity) who asked for the money.
 * A system principal (the recurrence, an event producer, the settlement poll) can never approve.
 *
 * @throws ApprovalForbiddenError
 */
export function assertMayApprove(requester: Principal, approver: Principal, what: string): void {
  if (approver.kind !== 'user') {
    throw new ApprovalForbiddenError(`${what} can only be approved by a person, not by ${approver.id}`);
  }
  if (sameIdentity(requester, approver)) {
    throw new ApprovalForbiddenError(
      `${what} was requested by ${requester.id}, who therefore cannot approve it`,
    );
  }
}
