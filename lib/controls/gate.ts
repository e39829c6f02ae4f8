import { ValidationError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { ApprovalForbiddenError } from './errors.js';
import { identityOf, sameIdentity } from './identity.js';
import type { Approval, Principal } from './principal.js';

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
  /** A payroll run: its total judged once as a whole (lib/payout-runs), each row as its own payout. */
  PayoutRun: 'payout-run',
} as const;
export type MoneyEntryPoint = (typeof MoneyEntryPoint)[keyof typeof MoneyEntryPoint];

/** The amount limits of the gate; pause and the daily cap are checked where the money is committed. */
export interface GateLimits {
  /** The largest single instruction accepted, in kobo. */
  readonly maxInstructionKobo: number;
  /** Instructions of at least this amount wait for a second person's approval. */
  readonly approvalThresholdKobo: number;
  /**
   * The provider's id of the merchant's main wallet (`MAIN_WALLET_ID`): a wallet transfer or debit naming it
   * debits the main wallet, so it counts against the main wallet's counter like a bank transfer. Unset, the gate
   * cannot tell the main wallet from another, so every wallet counts against the main wallet's counter (it fails
   * closed: the cap may refuse sooner, never let more leave the main wallet).
   */
  readonly mainWalletId?: string;
  /**
   * Instructions of at least this amount (or of an amount not known here) wait for two approvals by two
   * different persons, neither the requester (docs/controls.md, "Approver limits and two approvers"). Unset: one.
   */
  readonly secondApprovalThresholdKobo?: number;
  /** The most each approver may approve (docs/controls.md, "Approver limits and two approvers"). Unset: no limit. */
  readonly approverLimits?: ApproverLimits;
}

/** The most an approver may approve, in kobo: by the approver's identity, else the default. */
export interface ApproverLimits {
  /** The limit of every approver not named in `byApprover`; unset, they have none. */
  readonly defaultKobo?: number;
  /** Limits by the approver's principal id as recorded (`person/cognito:<sub>`, a local name), compared as identities. */
  readonly byApprover?: Readonly<Record<string, number>>;
}

/**
 * The first of two approvals, recorded on an instruction that waits for a second (`judgeApproval`). Named as a
 * rejection is (`actor`, `at`): the payout's stored names have both already.
 */
export type FirstApproval = Approval;

/**
 * The account an instruction debits, as the entry point names it. The gate derives the daily cap's counter from
 * it (`capCounterOf`): one account, one counter, whichever entry point and payout type moves its money.
 */
export type DebitedAccount =
  | { readonly kind: 'main_wallet' }
  | { readonly kind: 'wallet'; readonly walletId: string }
  | { readonly kind: 'child_account'; readonly childAccountId: string };

/**
 * Where a value of an instruction came from, which decides how far the gate may trust it:
 * - `request`: the instruction's own value, set by whoever sends this request (the requester);
 * - `person`: set earlier by a person (an earlier correction), known here only because that person said so;
 * - `provider`: the provider's own record says so.
 */
export type ValueSource =
  | { readonly from: 'request' }
  | { readonly from: 'person'; readonly by: Principal; readonly at?: string }
  | { readonly from: 'provider' };

/**
 * A money instruction as every entry point describes it to the gate: the account debited, the amount, the
 * destination, and who set each. The gate alone derives from it the cap counter, the amount at stake, whether a
 * second person must approve, and what is refused (docs/controls.md, "The instruction").
 */
export interface MoneyInstruction {
  readonly entryPoint: MoneyEntryPoint;
  readonly debits: DebitedAccount;
  /**
   * The amount it sends, in kobo, and where it came from; `kobo: undefined` when it is not known here (a bulk
   * item whose amount the service never saw). An unknown amount is never taken as 0.
   */
  readonly amount: {
    readonly kobo: number | undefined;
    readonly source: ValueSource;
    /** The request field that carries the amount, named in a refusal (`amount`, `detail.payout.amount`). */
    readonly path?: string;
    /**
     * The amount is the total of instructions each judged on its own (a payout run's rows): the approval
     * threshold applies to it, the per-payout maximum only to each of them.
     */
    readonly isTotal?: boolean;
  };
  /**
   * The destination, when this instruction changes one an earlier instruction set (a bulk item's account): who
   * entered the new one, and whether the provider reported the old one invalid (so the money never left for it).
   * Absent when the destination is the instruction's own and new with it (a payout's beneficiary).
   */
  readonly redirect?: {
    readonly enteredBy: Principal;
    readonly previousInvalidAtProvider: boolean;
  };
  /** Who releases the money now: the requester sending at once, or the approver at an approval. */
  readonly releasedBy: Principal;
  /** Something else demands a second person, named in the hold. */
  readonly approvalReason?: string;
}

/** What the gate decided for an instruction (`judge`). */
export interface Judgement extends GateDecision {
  /** The daily cap's counter the instruction's claim reserves on: the account it debits. */
  readonly capCounter: string;
  /** The amount the gate weighed; `undefined` when not known here (then a second person must approve). */
  readonly amountAtStakeKobo: number | undefined;
}

/** The cap counter of the main wallet (bank transfers, wallet credits, refunds, instant settlements, bulk runs). */
export const MAIN_WALLET_CAP_COUNTER = 'merchant';

/**
 * The daily cap's counter of an account debited: `merchant` for the main wallet (by kind, or a wallet naming the
 * configured main wallet's id, or any wallet when no main wallet id is configured), `wallet:<id>` for another
 * wallet, `child:<id>` for a child account. One account, one counter: a wallet transfer out of the main wallet and
 * a bank transfer count together.
 */
export function capCounterOf(limits: Pick<GateLimits, 'mainWalletId'>, debits: DebitedAccount): string {
  switch (debits.kind) {
    case 'main_wallet':
      return MAIN_WALLET_CAP_COUNTER;
    case 'wallet':
      return limits.mainWalletId === undefined || debits.walletId === limits.mainWalletId
        ? MAIN_WALLET_CAP_COUNTER
        : `wallet:${debits.walletId}`;
    case 'child_account':
      return `child:${debits.childAccountId}`;
  }
}

/**
 * The amount at stake: the instruction's own amount, or one the provider's record shows, is taken as it is; an
 * amount known only because a person said so earlier is taken only when that person is not the one releasing the
 * money now (else one person could set an amount below the threshold and then redirect it alone).
 */
function amountAtStakeOf(instruction: MoneyInstruction): number | undefined {
  const { kobo, source } = instruction.amount;
  if (kobo === undefined) return undefined;
  if (source.from === 'person' && sameIdentity(source.by, instruction.releasedBy)) return undefined;
  return kobo;
}

/**
 * Why redirecting money needs a second person, or undefined. Every redirect is held, unless the provider reported
 * the old destination invalid (the money never left for it) and the new one was entered by someone other than
 * the person releasing it: then two people already stand behind it.
 */
function redirectHold(instruction: MoneyInstruction): string | undefined {
  const { redirect } = instruction;
  if (!redirect) return undefined;
  if (!redirect.previousInvalidAtProvider)
    return 'changes the destination of money the provider may hold as valid';
  if (sameIdentity(redirect.enteredBy, instruction.releasedBy))
    return 'changes a destination to one entered by the same person who releases it';
  return undefined;
}

/**
 * The one control gate over a described instruction: derives the cap counter and the amount at stake, refuses an
 * amount above the maximum, and decides whether a second person must approve (at or above the threshold, an
 * amount not known here, a redirect, or what the entry point adds). Fails closed on an unknown amount.
 *
 * @throws ValidationError naming the amount's field when the amount is above the maximum
 * @example const { capCounter, approvalRequired } = judge(limits, { entryPoint, debits, amount, releasedBy });
 */
export function judge(limits: GateLimits, instruction: MoneyInstruction): Judgement {
  const amountAtStakeKobo = amountAtStakeOf(instruction);
  const reasons = [instruction.approvalReason, redirectHold(instruction)].filter(
    (reason): reason is string => reason !== undefined,
  );
  const decision = admit(limits, {
    entryPoint: instruction.entryPoint,
    amountKobo: amountAtStakeKobo,
    ...(instruction.amount.path !== undefined && { amountPath: instruction.amount.path }),
    ...(instruction.amount.isTotal && { amountIsTotal: true }),
    ...(reasons.length > 0 && { approvalReason: reasons.join('; ') }),
  });
  return { ...decision, capCounter: capCounterOf(limits, instruction.debits), amountAtStakeKobo };
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
  /** The amount totals instructions each judged against the maximum on its own: only the threshold applies. */
  readonly amountIsTotal?: boolean;
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
function admit(limits: GateLimits, request: GateRequest): GateDecision {
  if (request.amountKobo === undefined) {
    const unknown =
      'the amount it sends is not known here, so neither the per-payout maximum nor the approval threshold could be checked';
    return { approvalRequired: request.approvalReason ? `${request.approvalReason}; ${unknown}` : unknown };
  }
  const path = request.amountPath ?? 'amount';
  if (!request.amountIsTotal && request.amountKobo > limits.maxInstructionKobo) {
    const message = `must be at most ${limits.maxInstructionKobo} kobo (the per-payout maximum)`;
    throw new ValidationError(`${path}: ${message}`, [{ path, message }]);
  }
  if (reachesApprovalThreshold(limits, request.amountKobo)) {
    return { approvalRequired: `at or above the approval threshold of ${limits.approvalThresholdKobo} kobo` };
  }
  return request.approvalReason ? { approvalRequired: request.approvalReason } : {};
}

/** An approval about to release an instruction, as the gate weighs it again (`judgeApproval`). */
export interface PendingApproval {
  /** The instruction, named in a refusal and its log line: `payout 01J… (150000 kobo)`. */
  readonly what: string;
  /** The status the instruction stays in when the approval is refused. */
  readonly stays: string;
  /** What a refusal tells the approver to do instead; by default, cancel it or wait for the maximum. */
  readonly instead?: string;
  readonly approver: Principal;
  /**
   * The first approval the instruction records, when two approvers must approve it, or undefined. Required, so that
   * no entry point forgets to show the gate what it holds.
   */
  readonly firstApproval: FirstApproval | undefined;
  /** Where a refusal is logged: it changes nothing, so no audit event records it. */
  readonly logger: Pick<Logger, 'warn'>;
}

/** What an approval does (`judgeApproval`). */
export interface ApprovalJudgement {
  readonly judgement: Judgement;
  /** The approval's audit reason. */
  readonly reason: string;
  /**
   * False when this is the first of two approvals: the entry point records it (`{ actor: approver, at }`) and the
   * instruction keeps waiting for approval; true when the approval releases it, as one approval does below the
   * second-approval threshold.
   */
  readonly releases: boolean;
}

/**
 * The gate again at an approval (docs/controls.md, "again at approval"): an approval releases the money, so it
 * runs `judge` on the instruction as described at its request, with `releasedBy` the approver, with the limits in
 * force when it is given, not those it was admitted under: operators may have lowered the maximum while it waited.
 * Then the approver's own limit (`approverLimits`), and whether a second approval must follow
 * (`secondApprovalThresholdKobo`): at or above it, the first approval is recorded and the instruction waits on;
 * the second, by another person, releases it. Returns the judgement (with its cap counter and amount at stake, for
 * the approval's claim), the approval's audit reason (which says so when the limits in force no longer ask for a
 * second person: approved all the same, since a person asked to), and whether it releases the instruction.
 *
 * @throws ValidationError naming the amount's field, said for the approver, who sent no amount: which instruction,
 *   that the limits in force refuse it, and that nothing changed (it stays `approval.stays`)
 * @throws ApprovalForbiddenError when the amount is above the approver's limit (or not known here while the
 *   approver has one), or the approver gave the first approval already
 * @example const { judgement, reason, releases } = judgeApproval(limits, { ...instruction, releasedBy: approver }, approval);
 */
export function judgeApproval(
  limits: GateLimits,
  instruction: MoneyInstruction,
  approval: PendingApproval,
): ApprovalJudgement {
  const { decision: judgement, reason } = approvedThrough(() => judge(limits, instruction), approval);
  const kobo = judgement.amountAtStakeKobo;
  const { approver, firstApproval: first } = approval;
  const limit = approverLimitOf(limits, approver);
  // An amount not known here cannot be shown to be within a limit: refused (fails closed).
  const refusal =
    limit !== undefined && (kobo ?? Number.POSITIVE_INFINITY) > limit
      ? `cannot be approved by ${approver.id}: ${kobo ?? 'an amount not known here'} is above their approval limit of ${limit} kobo`
      : first && sameIdentity(first.actor, approver)
        ? `was approved first by ${first.actor.id}, who therefore cannot give its second approval`
        : undefined;
  if (refusal) {
    // It changes nothing, so no audit event records it (as for the maximum).
    approval.logger.warn('approval refused by the gate', {
      instruction: approval.what,
      approvedBy: approver.id,
    });
    throw new ApprovalForbiddenError(
      `${approval.what} ${refusal}; it stays ${approval.stays} and nothing changed`,
    );
  }
  if (first)
    return { judgement, reason: `${reason}, the second approver after ${first.actor.id}`, releases: true };
  const second = limits.secondApprovalThresholdKobo;
  // Two approvals at or above the second threshold, and (failing closed) for an amount not known here.
  const releases =
    second === undefined || !judgement.approvalRequired || (kobo !== undefined && kobo < second);
  return {
    judgement,
    reason: releases
      ? reason
      : `first approval by ${approver.id}; a second approver must approve (the second-approval threshold is ${second} kobo)`,
    releases,
  };
}

/** The approval limit of `approver`: the one named for their identity, else the default; undefined for none. */
function approverLimitOf({ approverLimits }: GateLimits, approver: Principal): number | undefined {
  const identity = identityOf(approver);
  const named = Object.entries(approverLimits?.byApprover ?? {}).find(
    ([id]) => identityOf({ id, kind: 'user' }) === identity,
  );
  return named ? named[1] : approverLimits?.defaultKobo;
}

/** The gate's decision at an approval (`decide`), a refusal reworded for the approver, and the audit reason. */
function approvedThrough<D extends GateDecision>(
  decide: () => D,
  approval: PendingApproval,
): { readonly decision: D; readonly reason: string } {
  let decision: D;
  try {
    decision = decide();
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

/** Noted in the audit of an approval the limits in force no longer ask for (`judgeApproval`). */
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
export function assertMayApprove(
  requester: Principal,
  approver: Principal,
  what: string,
  decision: 'approved' | 'rejected' = 'approved',
): void {
  if (approver.kind !== 'user') {
    throw new ApprovalForbiddenError(`${what} can only be ${decision} by a person, not by ${approver.id}`);
  }
  if (sameIdentity(requester, approver)) {
    const act = decision === 'approved' ? 'approve' : 'reject (a requester cancels their own)';
    throw new ApprovalForbiddenError(
      `${what} was requested by ${requester.id}, who therefore cannot ${act} it`,
    );
  }
}
