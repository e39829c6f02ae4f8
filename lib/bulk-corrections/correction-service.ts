import { toWholeNaira } from '../money.js';
import {
  admit,
  admitApproval,
  assertMayApprove,
  type GateLimits,
  type GateRequest,
  MoneyEntryPoint,
} from '../payouts/gate.js';
import type { Controls, Principal } from '../payouts/model.js';
import type { ProviderClient } from '../provider/client.js';
import {
  ProviderInvalidRequestError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../provider/errors.js';
import type { BulkPayoutItemRecord } from '../provider/schemas/bulk-payout.js';
import { type Clock, systemClock } from '../shared/clock.js';
import {
  InvalidTransitionError,
  isConcurrentModificationOf,
  NotFoundError,
  ValidationError,
} from '../shared/errors.js';
import { ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { fieldIssues } from '../shared/validation.js';
import type { DynamoDbBulkItemStore } from './bulk-item-store.js';
import {
  type BulkItemState,
  CORRECTABLE_FIELDS,
  type CorrectionAudit,
  CorrectionOutcome,
  type CorrectionResult,
  type FieldChange,
  type FieldValues,
  type PendingCorrection,
  PendingCorrectionStatus,
  type ValidationRecord,
} from './model.js';
import { type CorrectionFields, CorrectionFieldsSchema } from './schemas.js';

const STATE_WRITE_ATTEMPTS = 3;

/** Who withdrew a held correction and why: what its job row records. */
export type HeldCancellation = Pick<PendingCorrection, 'cancelReason'> &
  Required<Pick<PendingCorrection, 'cancelledBy' | 'cancelledAt'>>;

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
   * Takes the row's claim before the provider call; false when another delivery holds it (nothing is sent). A
   * `paused` result after the claim was taken means the pause was read after it: the caller gives the claim back.
   */
  readonly claim: () => Promise<boolean>;
}

export interface BulkCorrectionServiceOptions {
  readonly store: DynamoDbBulkItemStore;
  readonly provider: Pick<ProviderClient, 'bulkPayouts'>;
  /** The engine's limits: a correction of an item's amount or destination is a money instruction. */
  readonly limits: GateLimits;
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
  readonly #store: DynamoDbBulkItemStore;
  readonly #provider: Pick<ProviderClient, 'bulkPayouts'>;
  readonly #limits: GateLimits;
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

  /** Validates one correction and sends it, or holds it for a second person; `input` is the unparsed body. */
  async correct(id: string, input: unknown, actor: Principal): Promise<CorrectionResult> {
    const parsed = CorrectionFieldsSchema.safeParse(input);
    if (!parsed.success) return { outcome: CorrectionOutcome.Invalid, issues: fieldIssues(parsed.error) };
    const result = await this.#request(id, parsed.data, actor);
    // Only a job row has a claim that another delivery can hold.
    if (result.outcome === 'skipped') throw new Error('a single correction has no claim to lose');
    return result;
  }

  /**
   * A second person approves a held correction, which is then sent once (concurrent approvals send it once).
   * The approval passes the control gate again, weighed as at its request but with the limits in force now and
   * the item as known now: it releases the money, and the maximum may have been lowered while it waited. Above it
   * the approval answers `invalid` naming `amount` (a 400), and the correction stays `pending_approval`, nothing
   * claimed or sent. An amount still not known here fails closed as at the request: the approver stands in for
   * both checks, so the approval goes ahead.
   *
   * @throws NotFoundError; InvalidTransitionError when it is approved or cancelled already; ApprovalForbiddenError
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
    try {
      ({ reason } = admitApproval(this.#limits, gateRequestOf(fields, await this.#store.get(id)), {
        what,
        stays: PendingCorrectionStatus.PendingApproval,
        approver,
        logger: this.#logger,
      }));
    } catch (error) {
      // Nothing claimed, written or sent; corrections answer their refusals as outcomes.
      if (error instanceof ValidationError)
        return { outcome: CorrectionOutcome.Invalid, issues: error.issues };
      throw error;
    }
    // Read before the claim too, so that approving while paused writes no claim only to give it back.
    const pausedBefore = await this.#pausedResult();
    if (pausedBefore) return pausedBefore;
    const approvedAt = this.#clock.now().toISOString();
    await this.#store.claimApproval(held, approver, approvedAt);
    // Read again once the claim committed: a pause that landed after the read above is seen here, so once
    // `pausePayouts` returns no approval claimed afterwards is sent (the payout engine's rule, `pausedNow`).
    const paused = await this.#pausedResult();
    if (paused) {
      // Given back unsent: the correction waits for approval again, and any person but the requester may
      // approve it after resume.
      await this.#store.releaseApproval(held, approvedAt);
      return paused;
    }
    this.#logger.info('held correction approved', {
      bulkPayoutItemId: id,
      correctionId,
      // Says when the limits in force no longer ask for a second person (it is approved all the same).
      reason,
    });
    const result = await this.#send(id, fields, held.requestedBy, approver);
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
   * The gate: an amount above the maximum is refused; an amount at or above the approval threshold, an amount
   * not known here (`amountAtStake`), or a new destination for an item the provider may hold as valid, waits
   * for a second person; nothing is sent while payouts are paused. The provider offers no read of an item, so
   * an item is taken as possibly valid unless its latest record here (from an earlier correction) says it is
   * invalid.
   */
  async #request(
    id: string,
    fields: CorrectionFields,
    actor: Principal,
    row?: JobRowHooks,
  ): Promise<CorrectionResult | { readonly outcome: 'skipped' }> {
    const before = await this.#store.get(id);
    let approvalRequired: string | undefined;
    try {
      ({ approvalRequired } = admit(this.#limits, gateRequestOf(fields, before)));
    } catch (error) {
      if (error instanceof ValidationError)
        return { outcome: CorrectionOutcome.Invalid, issues: error.issues };
      throw error;
    }
    // Read before any claim or hold: while paused a row ends `paused` without a claim to give back, and nothing
    // is held. A single correction has no claim, so for it this read is the last step before the send.
    const pausedBefore = await this.#pausedResult();
    if (pausedBefore) return pausedBefore;
    if (!approvalRequired) {
      if (!row) return this.#send(id, fields, actor, undefined, before);
      if (!(await row.claim())) return { outcome: 'skipped' };
      // Read again once the row's claim committed: a pause that landed after the read above is seen here, so
      // once `pausePayouts` returns no row claimed afterwards is sent. Paused, the caller gives the claim back
      // (the row leaves `sending` for `paused`, nothing sent).
      const paused = await this.#pausedResult();
      if (paused) return paused;
      return this.#send(id, fields, actor, undefined, before);
    }
    const now = this.#clock.now();
    const correction: PendingCorrection = {
      correctionId: row?.correctionId ?? ulid(now),
      bulkPayoutItemId: id,
      fields: { ...fields },
      changes: changesOf(before, valuesOf(fields)),
      reason: approvalRequired,
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
    const item = await this.#writeState(id, before, to, validation, at);
    return { outcome, item, audit };
  }

  /** Stores the provider's record; a concurrent correction of the same item is re-read and merged over. */
  async #writeState(
    id: string,
    read: BulkItemState | undefined,
    to: FieldValues,
    record: ValidationRecord,
    at: string,
  ): Promise<BulkItemState> {
    let before = read;
    for (let attempt = 1; ; attempt++) {
      const state: BulkItemState = {
        bulkPayoutItemId: id,
        record,
        values: { ...before?.values, ...to, accountNumber: record.accountNumber, bankCode: record.bankCode },
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

/**
 * What the gate weighs for a correction of an item as known here (`before`): its amount at stake, and a new
 * destination for an item the provider may hold as valid. The same for the request and for its approval.
 */
function gateRequestOf(fields: CorrectionFields, before: BulkItemState | undefined): GateRequest {
  const changesDestination = fields.accountNumber !== undefined || fields.bankCode !== undefined;
  const knownInvalid = before !== undefined && !before.record.isValid;
  return {
    entryPoint: MoneyEntryPoint.BulkCorrection,
    amountKobo: amountAtStake(fields, before),
    ...(changesDestination &&
      !knownInvalid && {
        approvalReason:
          before === undefined
            ? 'changes the destination of an item whose validity is not known here (the provider may hold it as valid)'
            : 'changes the destination of an item the provider holds as valid',
      }),
  };
}

/**
 * The amount, in kobo, that the gate weighs for a correction. A new amount is the amount. A new destination
 * redirects the item's whole amount: the one an earlier correction of ours set and the provider saved, or
 * `undefined` when none did (the provider's records carry no amount and it offers no read of an item), which the
 * gate never takes as 0 but holds for a second person. A correction of the narration or phone number alone moves
 * no money elsewhere and changes no amount, so it weighs nothing.
 */
function amountAtStake(fields: CorrectionFields, before: BulkItemState | undefined): number | undefined {
  if (fields.amount !== undefined) return fields.amount;
  if (fields.accountNumber === undefined && fields.bankCode === undefined) return 0;
  const known = before?.values.amountKobo;
  return typeof known === 'number' ? known : undefined;
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
