import type { Principal } from '../controls/index.js';
import { type Judgement, judge } from '../controls/index.js';
import { toWholeNaira } from '../money.js';
import type { CapChange, Controls } from '../payouts/index.js';
import type { BulkPayoutItemRecord, ProviderClient } from '../provider/index.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { fieldIssues } from '../shared/validation.js';
import type { BulkItemStore } from './bulk-item-store.js';
import { claimAndSend, claimRowAndSend } from './correction-claims.js';
import type {
  BulkCorrectionLimits,
  CorrectionContext,
  HeldJobRowOutcomes,
  JobRowHooks,
} from './correction-context.js';
import { capExceeded, pausedResult, reservationOf } from './correction-controls.js';
import { changesOf, describeCorrection, valuesOf } from './correction-instruction.js';
import { recordFailure, writeState } from './correction-records.js';
import { approveHeld, cancelHeld } from './held-corrections.js';
import {
  type BulkItemState,
  type CorrectionAudit,
  CorrectionOutcome,
  type CorrectionResult,
  type PendingCorrection,
  PendingCorrectionStatus,
  type ValidationRecord,
} from './model.js';
import { type CorrectionFields, CorrectionFieldsSchema } from './schemas.js';

export interface BulkCorrectionServiceOptions {
  readonly store: BulkItemStore;
  readonly provider: Pick<ProviderClient, 'bulkPayouts'>;
  /**
   * The engine's limits: a correction of an item's amount or destination is a money instruction, and what it puts
   * at stake counts against the daily cap of the main wallet.
   */
  readonly limits: BulkCorrectionLimits;
  /** The ops switches; nothing is sent while payouts are paused. */
  readonly controls: () => Promise<Controls>;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Where the outcome of an approved job row goes; none outside the composition root's wiring. */
  readonly heldJobRows?: HeldJobRowOutcomes;
}

/**
 * Corrections of invalid bulk payout items: validated here field by field first (a bad field makes no
 * provider call), then sent with `PATCH /payout/bulk/item`; the provider's validation record is stored and
 * every sent correction is audited with who changed which field from what to what. Only the provider's
 * record decides whether an item is valid.
 *
 * @example
 * const result = await service.correct('item-1', { accountNumber: '0123456789' }, { id: 'alice', kind: 'user' });
 * if (result.outcome === 'still_invalid') console.log(result.item.record.reason);
 */
export class BulkCorrectionService {
  readonly #ctx: CorrectionContext;

  constructor(options: BulkCorrectionServiceOptions) {
    const ctx: CorrectionContext = {
      heldJobRows: options.heldJobRows,
      store: options.store,
      provider: options.provider,
      limits: options.limits,
      controls: options.controls,
      clock: options.clock ?? systemClock,
      logger: options.logger ?? silentLogger,
      sendReserved: (...send) => sendReserved(ctx, ...send),
    };
    this.#ctx = ctx;
  }

  /** The item's latest state, its audit (oldest first) and the corrections held for approval. */
  async get(
    id: string,
  ): Promise<{ item: BulkItemState; audit: CorrectionAudit[]; corrections: PendingCorrection[] }> {
    const [item, audit, corrections] = await Promise.all([
      this.#ctx.store.get(id),
      this.#ctx.store.audit(id),
      this.#ctx.store.pending(id),
    ]);
    if (!item)
      throw new NotFoundError('bulk payout item', id, {
        detail: `no correction of bulk payout item ${id} has been recorded`,
      });
    return { item, audit, corrections };
  }

  /** The items corrected here, newest change first (the provider offers no listing of bulk items). */
  list(query: { isValid?: boolean; limit: number; cursor?: string }) {
    return this.#ctx.store.list(query);
  }

  /** Corrections held for a second person across items, newest first (`pending_approval`: the queue). */
  listCorrections(query: { status?: PendingCorrection['status']; limit: number; cursor?: string }) {
    return this.#ctx.store.listCorrections(query);
  }

  /**
   * Validates one correction and sends it, or holds it for a second person; `input` is the unparsed body. A
   * correction sent at once first takes the item's claim (with its reservation on the daily cap), so of two at once
   * only one is sent.
   *
   * @throws ConcurrentModificationError when another correction of the item is being sent (nothing sent)
   */
  async correct(id: string, input: unknown, actor: Principal): Promise<CorrectionResult> {
    const parsed = CorrectionFieldsSchema.safeParse(input);
    if (!parsed.success) return { outcome: CorrectionOutcome.Invalid, issues: fieldIssues(parsed.error) };
    const result = await requestCorrection(this.#ctx, id, parsed.data, actor);
    // Only a job row has a claim that another delivery can hold.
    if (result.outcome === 'skipped') throw new Error('a single correction has no job row claim to lose');
    return result;
  }

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
  approve(id: string, correctionId: string, approver: Principal): Promise<CorrectionResult> {
    return approveHeld(this.#ctx, id, correctionId, approver);
  }

  /**
   * Withdraws a correction held for a second person, which is then never sent. Anyone may withdraw it, the
   * requester too: it moves no money (as for a refund's cancel). Only `pending_approval` can be withdrawn, and the
   * write is conditional on it, so a cancel racing an approval loses to an approval's claim that committed first
   * (and the other way round): exactly one of them wins. A job row it came from ends `cancelled`.
   *
   * @throws NotFoundError; InvalidTransitionError when it is approved or cancelled already
   */
  cancel(id: string, correctionId: string, actor: Principal, reason?: string): Promise<PendingCorrection> {
    return cancelHeld(this.#ctx, id, correctionId, actor, reason);
  }

  /**
   * One row of a correction job, as a queue worker runs it: the same gate as a single correction (the row was
   * validated when the job was accepted), held with the row's fixed correction id, or sent once the row's claim
   * commits. `skipped`: another delivery holds the claim, nothing was sent.
   */
  async correctJobRow(
    id: string,
    fields: CorrectionFields,
    actor: Principal,
    hooks: JobRowHooks,
  ): Promise<CorrectionResult | { readonly outcome: 'skipped' }> {
    return requestCorrection(this.#ctx, id, fields, actor, hooks);
  }
}

/**
 * The gate, on the correction described as a money instruction (`instructionOf`, released by the requester):
 * `judge` refuses an amount above the maximum, and holds for a second person an amount at or above the approval
 * threshold, an amount not known here, and every new destination but one for an item the provider reports
 * invalid entered by someone other than the releaser (never the case here: the requester releases it). Nothing is
 * sent while payouts are paused. What goes at once is claimed first, with its amount at stake reserved on the
 * daily cap of the account it debits (`judgement.capCounter`) in the claim's transaction; past the cap nothing is
 * claimed or sent (`cap_exceeded`). The pause is read again after the claim.
 */
async function requestCorrection(
  ctx: CorrectionContext,
  id: string,
  fields: CorrectionFields,
  actor: Principal,
  row?: JobRowHooks,
): Promise<CorrectionResult | { readonly outcome: 'skipped' }> {
  const before = await ctx.store.get(id);
  let judgement: Judgement;
  try {
    judgement = judge(ctx.limits, describeCorrection(fields, before, actor, actor));
  } catch (error) {
    if (error instanceof ValidationError) return { outcome: CorrectionOutcome.Invalid, issues: error.issues };
    throw error;
  }
  // Read before any claim or hold: while paused a row ends `paused` without a claim to give back, and nothing
  // is held.
  const pausedBefore = await pausedResult(ctx);
  if (pausedBefore) return pausedBefore;
  if (!judgement.approvalRequired) {
    const now = ctx.clock.now();
    const cap = reservationOf(ctx, judgement, now);
    // The counter's condition lets the day's first reservation through whatever its size: one above the whole
    // cap is refused here.
    if (cap && cap.deltaKobo > ctx.limits.dailyCapKobo) return capExceeded(ctx, id, cap);
    return row
      ? claimRowAndSend(ctx, id, fields, actor, before, row, cap)
      : claimAndSend(ctx, id, fields, actor, before, now, cap);
  }
  const now = ctx.clock.now();
  const correction: PendingCorrection = {
    correctionId: row?.correctionId ?? ulid(now),
    bulkPayoutItemId: id,
    fields: { ...fields },
    changes: changesOf(before, valuesOf(fields)),
    reason: judgement.approvalRequired,
    status: PendingCorrectionStatus.PendingApproval,
    requestedBy: actor,
    requestedAt: now.toISOString(),
    ...(row && { job: row.job }),
  };
  await ctx.store.putPending(correction);
  ctx.logger.info('bulk item correction waits for approval', {
    bulkPayoutItemId: id,
    correctionId: correction.correctionId,
  });
  return { outcome: CorrectionOutcome.PendingApproval, correction };
}

/**
 * Sends a claimed correction and gives its reservation back only when the provider proves it moved no money:
 * it refused the correction (`provider_rejected`), could not be reached before anything was sent (`not_sent`), or
 * saved it and reports the item invalid (`still_invalid`: an invalid item is not paid). A correction `corrected`
 * or of unknown outcome keeps it.
 */
async function sendReserved(
  ctx: CorrectionContext,
  id: string,
  fields: CorrectionFields,
  actor: Principal,
  cap: CapChange | undefined,
  approvedBy?: Principal,
  read?: BulkItemState,
): Promise<CorrectionResult> {
  const result = await sendCorrection(ctx, id, fields, actor, approvedBy, read);
  if (cap && PROVED_UNPAID.has(result.outcome)) await ctx.store.releaseCap(cap);
  return result;
}

/** Outcomes in which the provider proves the correction moved no money: its reservation is given back. */
const PROVED_UNPAID: ReadonlySet<CorrectionOutcome> = new Set<CorrectionOutcome>([
  CorrectionOutcome.ProviderRejected,
  CorrectionOutcome.NotSent,
  CorrectionOutcome.StillInvalid,
]);

/**
 * The provider call of a correction (`PATCH /payout/bulk/item`), made only by a correction judged above and claimed,
 * and its record: the audit of what changed, and the item's state with the provider's validation record.
 */
async function sendCorrection(
  ctx: CorrectionContext,
  id: string,
  fields: CorrectionFields,
  actor: Principal,
  approvedBy?: Principal,
  read?: BulkItemState,
): Promise<CorrectionResult> {
  const before = read ?? (await ctx.store.get(id));
  const to = valuesOf(fields);
  const changes = changesOf(before, to);
  const by = { actor, ...(approvedBy && { approvedBy }) };
  let records: BulkPayoutItemRecord[];
  try {
    const page = await ctx.provider.bulkPayouts.updateItem({
      bulkPayoutItemId: id,
      ...(fields.accountNumber !== undefined && { accountNumber: fields.accountNumber }),
      ...(fields.bankCode !== undefined && { bankCode: fields.bankCode }),
      ...(fields.amount !== undefined && { amount: toWholeNaira(fields.amount) }),
      ...(fields.phoneNumber !== undefined && { phoneNumber: fields.phoneNumber }),
      ...(fields.narration !== undefined && { narration: fields.narration }),
    });
    records = page.items;
  } catch (error) {
    return recordFailure(ctx, id, by, changes, error);
  }
  const record = records.find((candidate) => candidate.id === id);
  const at = ctx.clock.now().toISOString();
  if (!record) {
    const failure = {
      code: 'ITEM_NOT_IN_ANSWER',
      message: "the provider answered without the item's record",
    };
    const audit = { bulkPayoutItemId: id, at, ...by, changes, outcome: CorrectionOutcome.Unknown, failure };
    await ctx.store.appendAudit(audit);
    return { outcome: CorrectionOutcome.Unknown, failure, audit };
  }
  const validation: ValidationRecord = {
    accountName: record.accountName,
    accountNumber: record.accountNumber,
    bankCode: record.bankCode,
    bankName: record.bankName,
    isValid: record.isValid,
    reason: record.reason,
    createdAt: record.createdAt,
  };
  const outcome = record.isValid ? CorrectionOutcome.Corrected : CorrectionOutcome.StillInvalid;
  const audit: CorrectionAudit = {
    bulkPayoutItemId: id,
    at,
    ...by,
    changes,
    outcome,
    provider: { isValid: record.isValid, reason: record.reason },
  };
  await ctx.store.appendAudit(audit);
  const item = await writeState(ctx, id, before, to, validation, at, actor);
  return { outcome, item, audit };
}
