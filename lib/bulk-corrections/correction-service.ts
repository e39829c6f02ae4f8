import { toWholeNaira } from '../money.js';
import type { EngineConfig } from '../payouts/config.js';
import { DailyCapExceededError } from '../payouts/errors.js';
import {
  assertMayApprove,
  type GateLimits,
  type Judgement,
  judge,
  judgeApproval,
  MoneyEntryPoint,
  type MoneyInstruction,
} from '../payouts/gate.js';
import type { Controls, Principal } from '../payouts/model.js';
import type { CapChange } from '../payouts/store/payout-store.js';
import type { ProviderClient } from '../provider/client.js';
import {
  ProviderInvalidRequestError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../provider/errors.js';
import type { BulkPayoutItemRecord } from '../provider/schemas/bulk-payout.js';
import { type Clock, systemClock } from '../shared/clock.js';
import {
  ConcurrentModificationError,
  InvalidTransitionError,
  isConcurrentModificationOf,
  NotFoundError,
  ValidationError,
} from '../shared/errors.js';
import { ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { fieldIssues } from '../shared/validation.js';
import { calendarDayIn } from '../shared/wall-clock.js';
import type { BulkItemStore } from './bulk-item-store.js';
import {
  type BulkItemState,
  CORRECTABLE_FIELDS,
  type CorrectionAudit,
  CorrectionOutcome,
  type CorrectionResult,
  type FieldChange,
  type FieldValues,
  type HeldCancellation,
  type PendingCorrection,
  PendingCorrectionStatus,
  type ValidationRecord,
} from './model.js';
import { type CorrectionFields, CorrectionFieldsSchema } from './schemas.js';

const STATE_WRITE_ATTEMPTS = 3;

/**
 * How long a single correction's claim holds its item: beyond the ops API function's timeout (29 s), so only a
 * request that stopped leaves one older than this, which the next correction of the item may then take over.
 */
export const SINGLE_CLAIM_LEASE_MS = 120_000;

/** The gate's limits and the daily cap a correction's claim reserves on. */
export type BulkCorrectionLimits = GateLimits & Pick<EngineConfig, 'dailyCapKobo' | 'capTimeZone'>;

/** Told what came of a held correction that a correction job's row had held (the job store). */
export interface HeldJobRowOutcomes {
  /** It was approved and sent: the row takes the send's outcome. */
  recordHeldOutcome(job: NonNullable<PendingCorrection['job']>, result: CorrectionResult): Promise<void>;
  /** It was withdrawn before anyone approved it: the row ends `cancelled`, nothing sent. */
  recordHeldCancellation(
    job: NonNullable<PendingCorrection['job']>,
    cancelled: HeldCancellation,
  ): Promise<void>;
}

/** How a correction job's row is held or claimed (lib/bulk-corrections/correction-jobs.ts). */
export interface JobRowHooks {
  readonly job: NonNullable<PendingCorrection['job']>;
  /** The id its held correction takes: fixed when the job was accepted, so a redelivery holds it once. */
  readonly correctionId: string;
  /**
   * Takes the row's claim before the provider call, in one transaction with `cap`, the reservation of its amount
   * at stake on the daily cap (none when nothing is at stake); false when another delivery holds it (nothing is
   * sent). A `paused` result after the claim was taken means the pause was read after it: the caller gives the
   * claim back (the service has given the reservation back already).
   *
   * @throws DailyCapExceededError when the reservation would pass the cap (nothing claimed)
   */
  readonly claim: (cap: CapChange | undefined) => Promise<boolean>;
}

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
  readonly #store: BulkItemStore;
  readonly #provider: Pick<ProviderClient, 'bulkPayouts'>;
  readonly #limits: BulkCorrectionLimits;
  readonly #controls: () => Promise<Controls>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #heldJobRows: HeldJobRowOutcomes | undefined;

  constructor(options: BulkCorrectionServiceOptions) {
    this.#heldJobRows = options.heldJobRows;
    this.#store = options.store;
    this.#provider = options.provider;
    this.#limits = options.limits;
    this.#controls = options.controls;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The item's latest state, its audit (oldest first) and the corrections held for approval. */
  async get(
    id: string,
  ): Promise<{ item: BulkItemState; audit: CorrectionAudit[]; corrections: PendingCorrection[] }> {
    const [item, audit, corrections] = await Promise.all([
      this.#store.get(id),
      this.#store.audit(id),
      this.#store.pending(id),
    ]);
    if (!item)
      throw new NotFoundError('bulk payout item', id, {
        detail: `no correction of bulk payout item ${id} has been recorded`,
      });
    return { item, audit, corrections };
  }

  /** The items corrected here, newest change first (the provider offers no listing of bulk items). */
  list(query: { isValid?: boolean; limit: number; cursor?: string }) {
    return this.#store.list(query);
  }

  /** Corrections held for a second person across items, newest first (`pending_approval`: the queue). */
  listCorrections(query: { status?: PendingCorrection['status']; limit: number; cursor?: string }) {
    return this.#store.listCorrections(query);
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
    const result = await this.#request(id, parsed.data, actor);
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
  async approve(id: string, correctionId: string, approver: Principal): Promise<CorrectionResult> {
    const held = await this.#store.getPending(id, correctionId);
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
      const instruction = describeCorrection(fields, await this.#store.get(id), held.requestedBy, approver);
      ({ judgement, reason, releases } = judgeApproval(this.#limits, instruction, {
        what,
        stays: PendingCorrectionStatus.PendingApproval,
        approver,
        firstApproval: held.firstApproval,
        logger: this.#logger,
      }));
    } catch (error) {
      // Nothing claimed, written or sent; corrections answer their refusals as outcomes.
      if (error instanceof ValidationError)
        return { outcome: CorrectionOutcome.Invalid, issues: error.issues };
      throw error;
    }
    if (!releases) {
      // The first of two: recorded on the held correction (nothing claimed or sent); it keeps waiting.
      const correction = await this.#store.recordFirstApproval(held, {
        actor: approver,
        at: this.#clock.now().toISOString(),
      });
      this.#logger.info('held correction approved first', { bulkPayoutItemId: id, correctionId, reason });
      return { outcome: CorrectionOutcome.PendingApproval, correction };
    }
    // Read before the claim too, so that approving while paused writes no claim only to give it back.
    const pausedBefore = await this.#pausedResult();
    if (pausedBefore) return pausedBefore;
    const now = this.#clock.now();
    const approvedAt = now.toISOString();
    const cap = this.#reservationOf(judgement, now);
    if (cap && cap.deltaKobo > this.#limits.dailyCapKobo) return this.#capExceeded(id, cap);
    try {
      await this.#store.claimApproval(held, approver, approvedAt, cap);
    } catch (error) {
      // Nothing claimed or reserved: the correction still waits, and may be approved once the day has room.
      if (error instanceof DailyCapExceededError) return this.#capExceeded(id, cap);
      throw error;
    }
    // Read again once the claim committed: a pause that landed after the read above is seen here, so once
    // `pausePayouts` returns no approval claimed afterwards is sent (the payout engine's rule, `pausedNow`).
    const paused = await this.#pausedResult();
    if (paused) {
      // Given back unsent, with its reservation: the correction waits for approval again, and any person but the
      // requester may approve it after resume.
      await this.#store.releaseApproval(held, approvedAt, cap);
      return paused;
    }
    this.#logger.info('held correction approved', {
      bulkPayoutItemId: id,
      correctionId,
      // Says when the limits in force no longer ask for a second person (it is approved all the same).
      reason,
    });
    const result = await this.#sendReserved(id, fields, held.requestedBy, cap, approver);
    await this.#store.recordOutcome(id, correctionId, result.outcome);
    if (held.job) await this.#heldJobRows?.recordHeldOutcome(held.job, result);
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
  async cancel(
    id: string,
    correctionId: string,
    actor: Principal,
    reason?: string,
  ): Promise<PendingCorrection> {
    const held = await this.#store.getPending(id, correctionId);
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
      cancelledAt: this.#clock.now().toISOString(),
      ...(reason !== undefined && { cancelReason: reason }),
    };
    const cancelled = await this.#store.cancelHeld(held, cancellation);
    // The audit of an item lists corrections sent to the provider; a withdrawal sent nothing, so who withdrew it,
    // when and why are recorded on the held correction itself, and logged.
    this.#logger.info('held correction cancelled', {
      bulkPayoutItemId: id,
      correctionId,
      cancelledBy: actor.id,
    });
    if (held.job) await this.#heldJobRows?.recordHeldCancellation(held.job, cancellation);
    return cancelled;
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
    return this.#request(id, fields, actor, hooks);
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
  async #request(
    id: string,
    fields: CorrectionFields,
    actor: Principal,
    row?: JobRowHooks,
  ): Promise<CorrectionResult | { readonly outcome: 'skipped' }> {
    const before = await this.#store.get(id);
    let judgement: Judgement;
    try {
      judgement = judge(this.#limits, describeCorrection(fields, before, actor, actor));
    } catch (error) {
      if (error instanceof ValidationError)
        return { outcome: CorrectionOutcome.Invalid, issues: error.issues };
      throw error;
    }
    // Read before any claim or hold: while paused a row ends `paused` without a claim to give back, and nothing
    // is held.
    const pausedBefore = await this.#pausedResult();
    if (pausedBefore) return pausedBefore;
    if (!judgement.approvalRequired) {
      const now = this.#clock.now();
      const cap = this.#reservationOf(judgement, now);
      // The counter's condition lets the day's first reservation through whatever its size: one above the whole
      // cap is refused here.
      if (cap && cap.deltaKobo > this.#limits.dailyCapKobo) return this.#capExceeded(id, cap);
      return row
        ? this.#claimRowAndSend(id, fields, actor, before, row, cap)
        : this.#claimAndSend(id, fields, actor, before, now, cap);
    }
    const now = this.#clock.now();
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
    await this.#store.putPending(correction);
    this.#logger.info('bulk item correction waits for approval', {
      bulkPayoutItemId: id,
      correctionId: correction.correctionId,
    });
    return { outcome: CorrectionOutcome.PendingApproval, correction };
  }

  /** A job row: the row's claim with the reservation, the pause read again, then the send. */
  async #claimRowAndSend(
    id: string,
    fields: CorrectionFields,
    actor: Principal,
    before: BulkItemState | undefined,
    row: JobRowHooks,
    cap: CapChange | undefined,
  ): Promise<CorrectionResult | { readonly outcome: 'skipped' }> {
    try {
      if (!(await row.claim(cap))) return { outcome: 'skipped' };
    } catch (error) {
      if (error instanceof DailyCapExceededError) return this.#capExceeded(id, cap);
      throw error;
    }
    // Read again once the row's claim committed: a pause that landed after the read above is seen here, so once
    // `pausePayouts` returns no row claimed afterwards is sent. Paused, the reservation is given back here and the
    // caller gives the claim back (the row leaves `sending` for `paused`, nothing sent).
    const paused = await this.#pausedResult();
    if (paused) {
      if (cap) await this.#store.releaseCap(cap);
      return paused;
    }
    return this.#sendReserved(id, fields, actor, cap, undefined, before);
  }

  /**
   * A single correction (PATCH): the item's claim with the reservation, the pause read again, then the send; the
   * claim ends once the outcome is recorded. The claim is what makes the same PATCH arriving twice at once send once.
   */
  async #claimAndSend(
    id: string,
    fields: CorrectionFields,
    actor: Principal,
    before: BulkItemState | undefined,
    now: Date,
    cap: CapChange | undefined,
  ): Promise<CorrectionResult> {
    const claimId = ulid(now);
    let claimed: boolean;
    try {
      claimed = await this.#store.claimSingle(
        id,
        {
          claimId,
          at: now.toISOString(),
          leaseUntil: new Date(now.getTime() + SINGLE_CLAIM_LEASE_MS).toISOString(),
        },
        cap,
      );
    } catch (error) {
      if (error instanceof DailyCapExceededError) return this.#capExceeded(id, cap);
      throw error;
    }
    if (!claimed)
      throw new ConcurrentModificationError('bulk payout item', id, {
        detail: `another correction of bulk payout item ${id} is being sent; nothing was sent: read the item, then correct it again if still needed`,
      });
    // Read again once the claim committed, as for a job row: paused, the claim and its reservation are given back
    // together, nothing sent.
    const paused = await this.#pausedResult();
    if (paused) {
      await this.#store.releaseSingle(id, claimId, this.#clock.now().toISOString(), cap);
      return paused;
    }
    const result = await this.#sendReserved(id, fields, actor, cap, undefined, before);
    await this.#store.releaseSingle(id, claimId, this.#clock.now().toISOString());
    return result;
  }

  /**
   * The reservation of a judged correction's amount at stake on its cap counter for the day, or none when it puts
   * nothing at stake (a narration or phone number alone). An amount the gate does not know (`undefined`: never
   * seen here, or known only by the word of the person releasing it) is never reserved as 0: it is reserved as the
   * per-payout maximum in force, which its approver (always required for it) attests it is within.
   */
  #reservationOf(judgement: Judgement, now: Date): CapChange | undefined {
    const kobo = judgement.amountAtStakeKobo ?? this.#limits.maxPayoutKobo;
    if (kobo === 0) return undefined;
    return {
      capKey: judgement.capCounter,
      day: calendarDayIn(this.#limits.capTimeZone, now),
      deltaKobo: kobo,
      limitKobo: this.#limits.dailyCapKobo,
    };
  }

  #capExceeded(id: string, cap: CapChange | undefined): CorrectionResult {
    this.#logger.warn('daily cap exceeded', { bulkPayoutItemId: id, capKey: cap?.capKey });
    return {
      outcome: CorrectionOutcome.CapExceeded,
      failure: {
        code: 'DAILY_CAP_EXCEEDED',
        message: `the daily cap of ${this.#limits.dailyCapKobo} kobo for ${cap?.capKey} would be exceeded by ${cap?.deltaKobo} kobo; nothing was sent`,
      },
    };
  }

  /**
   * Sends a claimed correction and gives its reservation back only when the provider proves it moved no money:
   * it refused the correction (`provider_rejected`), could not be reached before anything was sent (`not_sent`), or
   * saved it and reports the item invalid (`still_invalid`: an invalid item is not paid). A correction `corrected`
   * or of unknown outcome keeps it.
   */
  async #sendReserved(
    id: string,
    fields: CorrectionFields,
    actor: Principal,
    cap: CapChange | undefined,
    approvedBy?: Principal,
    read?: BulkItemState,
  ): Promise<CorrectionResult> {
    const result = await this.#send(id, fields, actor, approvedBy, read);
    if (cap && PROVED_UNPAID.has(result.outcome)) await this.#store.releaseCap(cap);
    return result;
  }

  async #pausedResult(): Promise<CorrectionResult | undefined> {
    const controls = await this.#controls();
    if (!controls.paused) return undefined;
    return {
      outcome: CorrectionOutcome.Paused,
      failure: {
        code: 'PAYOUTS_PAUSED',
        message: `payouts are paused${controls.reason ? ` (${controls.reason})` : ''}; nothing was sent`,
      },
    };
  }

  async #send(
    id: string,
    fields: CorrectionFields,
    actor: Principal,
    approvedBy?: Principal,
    read?: BulkItemState,
  ): Promise<CorrectionResult> {
    const before = read ?? (await this.#store.get(id));
    const to = valuesOf(fields);
    const changes = changesOf(before, to);
    const by = { actor, ...(approvedBy && { approvedBy }) };
    let records: BulkPayoutItemRecord[];
    try {
      const page = await this.#provider.bulkPayouts.updateItem({
        bulkPayoutItemId: id,
        ...(fields.accountNumber !== undefined && { accountNumber: fields.accountNumber }),
        ...(fields.bankCode !== undefined && { bankCode: fields.bankCode }),
        ...(fields.amount !== undefined && { amount: toWholeNaira(fields.amount) }),
        ...(fields.phoneNumber !== undefined && { phoneNumber: fields.phoneNumber }),
        ...(fields.narration !== undefined && { narration: fields.narration }),
      });
      records = page.items;
    } catch (error) {
      return this.#failed(id, by, changes, error);
    }
    const record = records.find((candidate) => candidate.id === id);
    const at = this.#clock.now().toISOString();
    if (!record) {
      const failure = {
        code: 'ITEM_NOT_IN_ANSWER',
        message: "the provider answered without the item's record",
      };
      const audit = { bulkPayoutItemId: id, at, ...by, changes, outcome: CorrectionOutcome.Unknown, failure };
      await this.#store.appendAudit(audit);
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
    await this.#store.appendAudit(audit);
    const item = await this.#writeState(id, before, to, validation, at, actor);
    return { outcome, item, audit };
  }

  /** Stores the provider's record; a concurrent correction of the same item is re-read and merged over. */
  async #writeState(
    id: string,
    read: BulkItemState | undefined,
    to: FieldValues,
    record: ValidationRecord,
    at: string,
    setBy: Principal,
  ): Promise<BulkItemState> {
    let before = read;
    for (let attempt = 1; ; attempt++) {
      // Who entered the amount the item now has: this correction's requester when it set one, else as before.
      const amountSetBy = to.amountKobo !== undefined ? setBy : before?.amountSetBy;
      const state: BulkItemState = {
        bulkPayoutItemId: id,
        record,
        values: { ...before?.values, ...to, accountNumber: record.accountNumber, bankCode: record.bankCode },
        ...(amountSetBy && { amountSetBy }),
        version: (before?.version ?? 0) + 1,
        updatedAt: at,
      };
      try {
        await this.#store.putState(state, before?.version ?? 0);
        return state;
      } catch (error) {
        if (!isConcurrentModificationOf(error, 'bulk payout item') || attempt >= STATE_WRITE_ATTEMPTS)
          throw error;
        before = await this.#store.get(id);
      }
    }
  }

  async #failed(
    id: string,
    by: { actor: Principal; approvedBy?: Principal },
    changes: readonly FieldChange[],
    error: unknown,
  ): Promise<CorrectionResult> {
    const at = this.#clock.now().toISOString();
    if (error instanceof ProviderRejectedError || error instanceof ProviderInvalidRequestError) {
      const failure = {
        code: error.code,
        message:
          error instanceof ProviderRejectedError ? (error.providerMessage ?? error.message) : error.message,
        ...(error instanceof ProviderRejectedError && { status: error.status }),
      };
      const audit = {
        bulkPayoutItemId: id,
        at,
        ...by,
        changes,
        outcome: CorrectionOutcome.ProviderRejected,
        failure: { code: failure.code, message: failure.message },
      };
      await this.#store.appendAudit(audit);
      return { outcome: CorrectionOutcome.ProviderRejected, failure, audit };
    }
    if (error instanceof ProviderUnavailableError) {
      return { outcome: CorrectionOutcome.NotSent, failure: { code: error.code, message: error.message } };
    }
    const failure = {
      code:
        error instanceof Error && 'code' in error && typeof error.code === 'string'
          ? error.code
          : 'UNEXPECTED',
      message: error instanceof Error ? error.message : String(error),
    };
    this.#logger.warn('bulk item correction outcome unknown', { bulkPayoutItemId: id, code: failure.code });
    const audit = { bulkPayoutItemId: id, at, ...by, changes, outcome: CorrectionOutcome.Unknown, failure };
    await this.#store.appendAudit(audit);
    return { outcome: CorrectionOutcome.Unknown, failure, audit };
  }
}

/** Outcomes in which the provider proves the correction moved no money: its reservation is given back. */
const PROVED_UNPAID: ReadonlySet<CorrectionOutcome> = new Set<CorrectionOutcome>([
  CorrectionOutcome.ProviderRejected,
  CorrectionOutcome.NotSent,
  CorrectionOutcome.StillInvalid,
]);

/**
 * A correction of an item as known here (`before`), described to the gate as a money instruction; the gate alone
 * derives from it the amount at stake, the cap counter and whether a second person must approve. The same for the
 * request (`releasedBy` the requester) and its approval (`releasedBy` the approver).
 *
 * - debits: the main wallet. The provider pays a bulk payout's items out of the merchant's main wallet (its bulk
 *   runs are merchant payouts; CONTRACT.md's table of debits has no other account for them), so corrections count
 *   on the main wallet's counter with bank transfers and refunds.
 * - amount: a new amount is the request's. A new destination alone sends the item's whole amount elsewhere: the one
 *   an earlier correction of ours set, as that person's word (`amountSetBy`), or not known here (the provider's
 *   records carry no amount and it offers no read of an item). A narration or phone number alone sends nothing
 *   new: 0 at stake.
 * - redirect: a new `accountNumber`/`bankCode`, entered by the requester; the old one provably never got the money
 *   only when the provider's latest record here says the item is invalid.
 */
export function describeCorrection(
  fields: CorrectionFields,
  before: BulkItemState | undefined,
  requestedBy: Principal,
  releasedBy: Principal,
): MoneyInstruction {
  const redirects = fields.accountNumber !== undefined || fields.bankCode !== undefined;
  return {
    entryPoint: MoneyEntryPoint.BulkCorrection,
    debits: { kind: 'main_wallet' },
    amount: amountOf(fields, before, redirects),
    ...(redirects && {
      redirect: {
        enteredBy: requestedBy,
        previousInvalidAtProvider: before !== undefined && !before.record.isValid,
      },
    }),
    releasedBy,
  };
}

function amountOf(
  fields: CorrectionFields,
  before: BulkItemState | undefined,
  redirects: boolean,
): MoneyInstruction['amount'] {
  if (fields.amount !== undefined) return { kobo: fields.amount, source: { from: 'request' } };
  if (!redirects) return { kobo: 0, source: { from: 'request' } };
  const known = before?.values.amountKobo;
  // A state stored before `amountSetBy` was kept names nobody behind its amount: not known here.
  if (typeof known === 'number' && before?.amountSetBy) {
    return { kobo: known, source: { from: 'person', by: before.amountSetBy, at: before.updatedAt } };
  }
  // The provider holds the item's amount, but its records do not carry it: never taken as 0.
  return { kobo: undefined, source: { from: 'provider' } };
}

function valuesOf(fields: CorrectionFields): FieldValues {
  return {
    ...(fields.accountNumber !== undefined && { accountNumber: fields.accountNumber }),
    ...(fields.bankCode !== undefined && { bankCode: fields.bankCode }),
    ...(fields.amount !== undefined && { amountKobo: fields.amount }),
    ...(fields.phoneNumber !== undefined && { phoneNumber: fields.phoneNumber }),
    ...(fields.narration !== undefined && { narration: fields.narration }),
  };
}

/** Before -> after per field; before comes from the last stored state, unknown on the item's first correction. */
function changesOf(before: BulkItemState | undefined, to: FieldValues): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of CORRECTABLE_FIELDS) {
    const value = to[field];
    if (value === undefined) continue;
    const from = before?.values[field];
    changes.push({ field, from: from ?? null, fromKnown: from !== undefined, to: value });
  }
  return changes;
}
