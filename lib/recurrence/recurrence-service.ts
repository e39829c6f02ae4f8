import { assertMayApprove, type GateLimits, judge, judgeApproval, MoneyEntryPoint } from '../payouts/gate.js';
import { describePayoutRequest } from '../payouts/instruction.js';
import type { Payout, PayoutStatus, Principal } from '../payouts/model.js';
import { CreatePayoutRequestSchema } from '../payouts/schemas.js';
import { forEachAtOnce } from '../shared/at-once.js';
import type { Clock } from '../shared/clock.js';
import {
  IdempotencyConflictError,
  InvalidTransitionError,
  isConcurrentModificationOf,
  NotFoundError,
  ValidationError,
} from '../shared/errors.js';
import { fingerprint, ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { CommandAudit } from './command-audit.js';
import {
  defaultRecurrenceConfig,
  type PayoutPort,
  type RecurrenceConfig,
  type RecurrenceContext,
} from './context.js';
import {
  cancelQuietly,
  occurrenceFrom,
  type RecurrenceSweepOptions,
  type RecurrenceSweepReport,
  type SkipOutcome,
  skipOccurrence,
  skipOverRecord,
  sweepRecurrences,
} from './materialise.js';
import {
  type OccurrenceRecord,
  OccurrenceState,
  type Recurrence,
  type RecurrenceAuditEvent,
  RecurrenceStatus,
  type RecurrenceTrailEvent,
} from './model.js';
import { type Occurrence, occurrenceOn, occurrences, type RecurrenceRule } from './rules.js';
import { type CreateRecurrenceRequest, DEFAULT_TIME_ZONE, RECURRENCE_FIELD_NAMES } from './schemas.js';
import type { RecurrencePage, RecurrenceStore } from './store/recurrence-store.js';

export interface RecurrenceServiceOptions {
  readonly store: RecurrenceStore;
  readonly payouts: PayoutPort;
  /** The engine's limits (its config): rules pass the same control gate as every other money instruction. */
  readonly limits: GateLimits;
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly config?: Partial<RecurrenceConfig>;
}

/** A recurrence as ops see it: the rule, what comes next, and what became of each past occurrence. */
export interface RecurrenceView {
  readonly recurrence: Recurrence;
  readonly upcoming: readonly (Occurrence & { readonly skipped: boolean })[];
  readonly history: readonly HistoryEntry[];
  /** Where older history goes on (`history(id, { before })`); absent when `history` is all of it. */
  readonly historyBefore?: string;
  /**
   * Who created, paused, resumed, cancelled or skipped it, and why; oldest first. `committed: false` marks the
   * event of a command that changed occurrence records but did not take effect (model.ts, RecurrenceTrailEvent).
   */
  readonly audit: readonly RecurrenceTrailEvent[];
}

/** What became of one occurrence, with its payout's status now. */
export type HistoryEntry = OccurrenceRecord & { readonly payoutStatus?: PayoutStatus };

/** One page of a recurring payout's history, newest first. */
export interface HistoryPage {
  readonly entries: readonly HistoryEntry[];
  /** The local date the next (older) page starts before; absent on the last page. */
  readonly before?: string;
}

/** How many retries a command makes when the sweeper advanced the recurrence meanwhile. */
const COMMAND_RETRIES = 3;

/**
 * Passed occurrences are recorded a page at a time (one key-range read of their records per page), each page's
 * skips written this many at once. A command cut off by the API's deadline keeps the pages it wrote: the same
 * command again finds them recorded and goes on from there.
 */
const PASSED_PAGE = 100;
const PASSED_WRITES_AT_ONCE = 10;

/**
 * Recurring payouts: a payout template plus a rule. Occurrences become ordinary scheduled payouts, each with
 * the key `<recurrenceId>:<localDate>`, so nothing a tick does twice can pay twice.
 *
 * @example
 * const service = new RecurrenceService({ store, payouts: engine, limits: engine.ctx.config, clock });
 * const { recurrence } = await service.create({ request, idempotencyKey: 'rent-2026', actor });
 * await service.sweep(); // from the every-minute schedule, before engine.sweep()
 */
export class RecurrenceService {
  readonly ctx: RecurrenceContext;

  constructor(options: RecurrenceServiceOptions) {
    this.ctx = {
      store: options.store,
      payouts: options.payouts,
      limits: options.limits,
      clock: options.clock,
      logger: options.logger ?? silentLogger,
      config: { ...defaultRecurrenceConfig, ...options.config },
    };
  }

  async create(command: {
    request: CreateRecurrenceRequest;
    idempotencyKey: string;
    actor: Principal;
  }): Promise<{ recurrence: Recurrence; replayed: boolean }> {
    const now = this.ctx.clock.now();
    const { request } = command;
    // The control gate, as for every money instruction: above the maximum is refused here (400 naming
    // `amount`), never accepted and then skipped at each occurrence.
    const gate = judge(
      this.ctx.limits,
      describePayoutRequest(request, MoneyEntryPoint.RecurringRule, command.actor),
    );
    const rule: RecurrenceRule = {
      interval: request.interval,
      every: request.every ?? 1,
      startDate: request.startDate,
      ...(request.endDate !== undefined && { endDate: request.endDate }),
      ...(request.maxOccurrences !== undefined && { maxOccurrences: request.maxOccurrences }),
      timeOfDay: request.timeOfDay,
      timeZone: request.timeZone ?? DEFAULT_TIME_ZONE,
    };
    if (rule.endDate !== undefined && rule.endDate < rule.startDate) {
      throw ValidationError.of([{ path: 'endDate', message: 'must not be before startDate' }]);
    }
    // Occurrences before the rule existed are not owed: the first is the first at or after now.
    const first = occurrences(rule, { from: now, limit: 1 })[0];
    if (!first) {
      throw ValidationError.of([
        {
          path: 'startDate',
          message: 'the rule has no occurrence from now on (check endDate and maxOccurrences)',
        },
      ]);
    }
    const template = CreatePayoutRequestSchema.parse(
      Object.fromEntries(Object.entries(request).filter(([name]) => !RECURRENCE_FIELD_NAMES.includes(name))),
    );
    const at = now.toISOString();
    const statusReason =
      gate.approvalRequired && `waits for a second person's approval: ${gate.approvalRequired}`;
    const recurrence: Recurrence = {
      id: ulid(now),
      status: statusReason ? RecurrenceStatus.PendingApproval : RecurrenceStatus.Active,
      ...(statusReason && { statusReason }),
      rule,
      template,
      idempotencyKey: command.idempotencyKey,
      requestFingerprint: fingerprint(request),
      nextIndex: first.index,
      nextOccurrenceAt: first.at,
      nextLocalDate: first.localDate,
      skippedDates: [],
      version: 1,
      createdBy: command.actor,
      createdAt: at,
      updatedAt: at,
    };
    const outcome = await this.ctx.store.create(recurrence, {
      recurrenceId: recurrence.id,
      sequence: 1,
      at,
      actor: command.actor,
      action: 'created',
      reason: `created by ${command.actor.id}${statusReason ? `; ${statusReason}` : ''}`,
    });
    if (outcome.created) {
      this.ctx.logger.info('recurring payout created', {
        recurrenceId: recurrence.id,
        first: first.at,
        status: recurrence.status,
      });
      return { recurrence, replayed: false };
    }
    if (outcome.existing.requestFingerprint !== recurrence.requestFingerprint) {
      throw new IdempotencyConflictError('recurring payout', command.idempotencyKey, outcome.existing.id);
    }
    return { recurrence: outcome.existing, replayed: true };
  }

  async get(id: string): Promise<Recurrence> {
    const recurrence = await this.ctx.store.get(id);
    if (!recurrence) throw new NotFoundError('recurring payout', id);
    return recurrence;
  }

  async view(id: string): Promise<RecurrenceView> {
    const recurrence = await this.get(id);
    const upcoming =
      recurrence.status === RecurrenceStatus.Active || recurrence.status === RecurrenceStatus.PendingApproval
        ? occurrences(recurrence.rule, {
            fromIndex: recurrence.nextIndex,
            limit: this.ctx.config.upcomingShown,
          })
        : [];
    const [history, audit] = await Promise.all([
      this.#historyPage(id, { limit: this.ctx.config.historyShown }),
      this.ctx.store.audit(id),
    ]);
    return {
      recurrence,
      upcoming: upcoming.map((o) => ({ ...o, skipped: recurrence.skippedDates.includes(o.localDate) })),
      history: history.entries,
      ...(history.before && { historyBefore: history.before }),
      audit,
    };
  }

  /** The whole history, page by page, newest first: each page ends where `before` says the next one starts. */
  async history(id: string, query: { limit: number; before?: string }): Promise<HistoryPage> {
    await this.get(id);
    return this.#historyPage(id, query);
  }

  async #historyPage(id: string, query: { limit: number; before?: string }): Promise<HistoryPage> {
    const records = await this.ctx.store.occurrences(id, query.limit + 1, query.before);
    const shown = records.slice(0, query.limit);
    const entries = await Promise.all(
      shown.map(async (record) => {
        const payout: Payout | undefined = record.payoutId
          ? await this.ctx.payouts.get(record.payoutId)
          : undefined;
        return { ...record, ...(payout && { payoutStatus: payout.status }) };
      }),
    );
    const last = shown.at(-1);
    return { entries, ...(records.length > query.limit && last && { before: last.localDate }) };
  }

  list(query: { status?: RecurrenceStatus; limit: number; cursor?: string }): Promise<RecurrencePage> {
    return this.ctx.store.list(query);
  }

  /**
   * Approves a rule waiting in `pending_approval` (four eyes: a person other than its creator, never a system
   * principal). Its occurrences are then requested by the creator and carry this approver, so they need no
   * approval of their own. Occurrences whose time passed while it waited are recorded as skipped. The approval
   * passes the control gate again with the limits in force now, since it releases the rule's money and the maximum
   * may have been lowered while the rule waited (each occurrence would be refused at its creation anyway): above
   * it the approval is refused and the rule stays `pending_approval`, unchanged, to be cancelled (or approved
   * once the maximum allows it). At or above the second-approval threshold (on an occurrence's amount) the first
   * approval is only recorded (`firstApproval`); a second approver, another person, activates it.
   *
   * @throws ApprovalForbiddenError when the approver is the creator or not a person, the amount is above the
   *   approver's limit, or the approver gave the first approval already
   * @throws ValidationError naming `amount` when the amount is above the per-payout maximum in force now
   */
  approve(id: string, approver: Principal): Promise<Recurrence> {
    return this.#command(id, approver, 'approved', async (recurrence, now, audit) => {
      if (recurrence.status !== RecurrenceStatus.PendingApproval) {
        throw new InvalidTransitionError(
          'recurring payout',
          `recurring payout ${id} is ${recurrence.status}, not pending_approval`,
        );
      }
      assertMayApprove(recurrence.createdBy, approver, `recurring payout ${id}`);
      // Refused before anything is written (no occurrence skipped, no version).
      const { reason: approved, releases } = judgeApproval(
        this.ctx.limits,
        describePayoutRequest(recurrence.template, MoneyEntryPoint.RecurringRule, approver),
        {
          what: `recurring payout ${id} (${recurrence.template.amount} kobo an occurrence)`,
          stays: RecurrenceStatus.PendingApproval,
          approver,
          firstApproval: recurrence.firstApproval,
          logger: this.ctx.logger,
        },
      );
      // The first of two: recorded and audited; the rule keeps waiting and materialises nothing.
      if (!releases)
        return { firstApproval: { actor: approver, at: now.toISOString() }, statusReason: approved };
      return {
        approvedBy: approver,
        ...(await this.#restartFrom(
          recurrence,
          now,
          `fell before the rule was approved; approved by ${approver.id}`,
          approved,
          audit,
        )),
      };
    });
  }

  /**
   * Rejects a rule waiting in `pending_approval`: a second person's refusal, with the reason. It ends `cancelled`
   * with its `rejection`, for good; none of its occurrences was ever materialised, and none will be. Its creator
   * withdraws their own with a cancel.
   *
   * @throws ApprovalForbiddenError when the approver is the creator or not a person
   */
  reject(id: string, approver: Principal, reason: string): Promise<Recurrence> {
    return this.#command(
      id,
      approver,
      'rejected',
      async (recurrence, now) => {
        if (recurrence.status !== RecurrenceStatus.PendingApproval) {
          throw new InvalidTransitionError(
            'recurring payout',
            `recurring payout ${id} is ${recurrence.status}; only a rule in pending_approval can be rejected`,
          );
        }
        assertMayApprove(recurrence.createdBy, approver, `recurring payout ${id}`, 'rejected');
        return {
          status: RecurrenceStatus.Cancelled,
          statusReason: `rejected by ${approver.id}: ${reason}`,
          rejection: { actor: approver, reason, at: now.toISOString() },
        };
      },
      `rejected by ${approver.id}: ${reason}`,
    );
  }

  /**
   * Stops materialising occurrences. The scheduled payouts of occurrences after now are cancelled and those
   * occurrences `held`: the resume decides on them (paid if their time is after the resume, skipped if not).
   */
  pause(id: string, actor: Principal, reason?: string): Promise<Recurrence> {
    return this.#command(id, actor, 'paused', async (recurrence, now, audit) => {
      if (recurrence.status !== RecurrenceStatus.Active) {
        throw new InvalidTransitionError(
          'recurring payout',
          `recurring payout ${id} is ${recurrence.status}, not active`,
        );
      }
      const why = `payout cancelled: paused by ${actor.id}`;
      let rewindTo = recurrence.nextIndex;
      for (const record of await this.#futureRecords(recurrence, now)) {
        const { payoutId } = record;
        const held =
          record.state === OccurrenceState.Held ||
          (record.state === OccurrenceState.Materialised &&
            payoutId !== undefined &&
            (await cancelQuietly(this.ctx, payoutId, why)) &&
            // Held only with the pause's audit event (committed with it, or before it by an earlier hold).
            (await audit.write(recurrence, (provisional) =>
              this.ctx.store.holdOccurrence(id, record.localDate, payoutId, why, provisional),
            )));
        if (held) rewindTo = Math.min(rewindTo, record.index);
      }
      // The pointer goes back to the first held occurrence, so that the resume looks at it again.
      const first = occurrenceFrom(recurrence, rewindTo);
      return {
        status: RecurrenceStatus.Paused,
        statusReason: reason ?? `paused by ${actor.id}`,
        ...(first && { nextIndex: first.index, nextOccurrenceAt: first.at, nextLocalDate: first.localDate }),
      };
    });
  }

  /**
   * Resumes from the first occurrence at or after now, held ones included (their payout is created again under
   * a new key). Occurrences that fell in the pause are recorded as skipped (a pause means "do not pay these"),
   * so the history shows every one of them.
   */
  resume(id: string, actor: Principal): Promise<Recurrence> {
    return this.#command(id, actor, 'resumed', async (recurrence, now, audit) => {
      if (recurrence.status !== RecurrenceStatus.Paused) {
        throw new InvalidTransitionError(
          'recurring payout',
          `recurring payout ${id} is ${recurrence.status}, not paused`,
        );
      }
      return this.#restartFrom(
        recurrence,
        now,
        `fell while paused; resumed by ${actor.id}`,
        `resumed by ${actor.id}`,
        audit,
      );
    });
  }

  /** Ends the recurrence for good; payouts already created for future occurrences are cancelled. */
  cancel(id: string, actor: Principal, reason?: string): Promise<Recurrence> {
    return this.#command(id, actor, 'cancelled', async (recurrence, now, audit) => {
      if (
        recurrence.status === RecurrenceStatus.Cancelled ||
        recurrence.status === RecurrenceStatus.Completed
      ) {
        throw new InvalidTransitionError(
          'recurring payout',
          `recurring payout ${id} is already ${recurrence.status}`,
        );
      }
      const why = `recurring payout cancelled by ${actor.id}`;
      if (recurrence.status === RecurrenceStatus.Paused) {
        // No resume will come to record the occurrences that fell in the pause: record them now.
        await this.#recordPassed(recurrence, now, `fell while paused; ${why}`, audit);
      }
      for (const record of await this.#futureRecords(recurrence, now)) {
        if (record.state === OccurrenceState.Skipped) continue;
        const occurrence = occurrenceOn(recurrence.rule, record.localDate);
        if (occurrence) await this.#skipAsRead(recurrence, occurrence, now, why, record, audit);
      }
      return { status: RecurrenceStatus.Cancelled, statusReason: reason ?? `cancelled by ${actor.id}` };
    });
  }

  /**
   * Skips one named occurrence (its local date). Not yet materialised: it never will be. Materialised and
   * still scheduled: its payout is cancelled. Already released or paid: refused. A tick that materialises it
   * while the skip runs loses: the skip finds the payout, cancels it, then records the skip (audited).
   */
  skip(id: string, localDate: string, actor: Principal, reason?: string): Promise<Recurrence> {
    const note = `occurrence of ${localDate} skipped by ${actor.id}${reason ? `: ${reason}` : ''}`;
    const why = reason ? `skipped by ${actor.id}: ${reason}` : `skipped by ${actor.id}`;
    // Set once an attempt of this command recorded the skip: a retry (a tick moved the pointer past the
    // occurrence meanwhile) then finds it skipped, and must still write the command's audit event.
    let recordedHere = false;
    return this.#command(
      id,
      actor,
      'skipped',
      async (recurrence, now, audit) => {
        if (
          recurrence.status === RecurrenceStatus.Cancelled ||
          recurrence.status === RecurrenceStatus.Completed
        ) {
          throw new InvalidTransitionError(
            'recurring payout',
            `recurring payout ${id} is ${recurrence.status}`,
          );
        }
        const occurrence = occurrenceOn(recurrence.rule, localDate);
        if (!occurrence) {
          throw ValidationError.of([
            { path: 'localDate', message: `${localDate} is not an occurrence of recurring payout ${id}` },
          ]);
        }
        const ahead = occurrence.index >= recurrence.nextIndex;
        if (!recordedHere)
          recordedHere = await this.#skipNamed(recurrence, occurrence, ahead, now, why, audit);
        // Dates ahead of the pointer are also kept on the recurrence, so the tick passes over them.
        if (ahead && !recurrence.skippedDates.includes(localDate)) {
          return { skippedDates: [...recurrence.skippedDates, localDate].sort() };
        }
        return recordedHere ? {} : undefined;
      },
      note,
    );
  }

  /**
   * Records the skip of a named occurrence, cancelling its payout if it has one. True when this call recorded
   * it, false when it was skipped already.
   *
   * @throws InvalidTransitionError when its payout is past cancelling, or it passed without a payout
   */
  async #skipNamed(
    recurrence: Recurrence,
    occurrence: Occurrence,
    ahead: boolean,
    now: Date,
    why: string,
    audit: CommandAudit,
  ): Promise<boolean> {
    const { localDate } = occurrence;
    const record = await this.ctx.store.getOccurrence(recurrence.id, localDate);
    if (
      !ahead &&
      record?.state !== OccurrenceState.Skipped &&
      !record?.payoutId &&
      occurrence.at < now.toISOString()
    ) {
      throw new InvalidTransitionError('recurring payout', `the occurrence of ${localDate} is in the past`);
    }
    const outcome = await this.#skipAsRead(recurrence, occurrence, now, why, record, audit);
    if (outcome.kind === 'payoutMoved') {
      throw new InvalidTransitionError(
        'recurring payout',
        `the occurrence of ${localDate} is already past its scheduled state (payout ${outcome.payoutId}); it cannot be skipped`,
      );
    }
    return outcome.kind === 'recorded';
  }

  /**
   * `skipOccurrence` starting from `record`, the occurrence's record as already read (undefined: none), so the
   * read is not repeated; read again only when it changed before the skip was written. The skip commits with the
   * command's audit event (`audit`), or after it.
   */
  async #skipAsRead(
    recurrence: Recurrence,
    occurrence: Occurrence,
    now: Date,
    why: string,
    record: OccurrenceRecord | undefined,
    audit: CommandAudit,
  ): Promise<SkipOutcome> {
    return (
      (await skipOverRecord(this.ctx, recurrence, occurrence, now, why, record, audit)) ??
      (await skipOccurrence(this.ctx, recurrence, occurrence, now, why, audit))
    );
  }

  /** One tick of the recurrence sweep; run it before the engine's sweep. */
  sweep(options?: RecurrenceSweepOptions): Promise<RecurrenceSweepReport> {
    return sweepRecurrences(this.ctx, options);
  }

  /**
   * Reads, applies a change, writes conditionally with the command's audit event; retries when the sweeper
   * advanced the recurrence meanwhile.
   *
   * `change` may change occurrence records before that write (holds, skips), and the write may then lose every
   * retry (409) or never come (the request cut off): so each occurrence write goes through `audit`, which commits
   * the command's provisional audit event with the first of them (command-audit.ts). The command's own event
   * supersedes it when the write commits; otherwise it stays in the trail, naming who changed the records.
   */
  async #command(
    id: string,
    actor: Principal,
    action: RecurrenceAuditEvent['action'],
    change: (
      recurrence: Recurrence,
      now: Date,
      audit: CommandAudit,
    ) => Promise<Partial<Recurrence> | undefined>,
    note?: string,
  ): Promise<Recurrence> {
    // One per invocation, across its retries: an occurrence changed by an attempt that lost stays covered by it.
    const audit = new CommandAudit({
      recurrenceId: id,
      actor,
      action,
      reason: note ?? `${action} by ${actor.id}`,
      clock: this.ctx.clock,
    });
    for (let attempt = 0; ; attempt++) {
      const recurrence = await this.get(id);
      const now = this.ctx.clock.now();
      // Undefined: the command changed nothing (a repeated skip), so nothing is written or audited. An empty
      // change still writes a version with the command's audit event: it decided something elsewhere.
      const changes = await change(recurrence, now, audit);
      if (!changes) return recurrence;
      try {
        const version = recurrence.version + 1;
        return await this.ctx.store.replace(
          recurrence,
          { ...recurrence, ...changes, version, updatedAt: now.toISOString() },
          audit.event({
            recurrenceId: id,
            sequence: version,
            at: now.toISOString(),
            actor,
            action,
            reason: note ?? changes.statusReason ?? `${action} by ${actor.id}`,
          }),
        );
      } catch (error) {
        if (!isConcurrentModificationOf(error, 'recurring payout') || attempt >= COMMAND_RETRIES) throw error;
      }
    }
  }

  /**
   * Records every occurrence from the pointer up to now as skipped (with `why`), then points at the first
   * occurrence at or after now; completed when there is none.
   */
  async #restartFrom(
    recurrence: Recurrence,
    now: Date,
    why: string,
    statusReason: string,
    audit: CommandAudit,
  ): Promise<Partial<Recurrence>> {
    await this.#recordPassed(recurrence, now, why, audit);
    const next = occurrences(recurrence.rule, { fromIndex: recurrence.nextIndex, from: now, limit: 1 })[0];
    if (!next)
      return { status: RecurrenceStatus.Completed, statusReason: `${statusReason}; no occurrence left` };
    return {
      status: RecurrenceStatus.Active,
      statusReason,
      nextIndex: next.index,
      nextOccurrenceAt: next.at,
      nextLocalDate: next.localDate,
    };
  }

  /**
   * Records every occurrence from the pointer whose time is before now as skipped (`why`), however many: a page
   * of occurrences at a time, their records read by one key range, their skips written a few at once.
   */
  async #recordPassed(recurrence: Recurrence, now: Date, why: string, audit: CommandAudit): Promise<void> {
    const before = new Date(now.getTime() - 1);
    for (let fromIndex = recurrence.nextIndex; ; ) {
      const page = occurrences(recurrence.rule, { fromIndex, to: before, limit: PASSED_PAGE });
      const [first, last] = [page[0], page.at(-1)];
      if (!first || !last) return;
      const records = await this.ctx.store.occurrencesFrom(recurrence.id, {
        from: first.localDate,
        to: last.localDate,
      });
      const recordOn = new Map(records.map((record) => [record.localDate, record]));
      await forEachAtOnce(page, PASSED_WRITES_AT_ONCE, (occurrence) =>
        this.#skipAsRead(recurrence, occurrence, now, why, recordOn.get(occurrence.localDate), audit),
      );
      if (page.length < PASSED_PAGE) return;
      fromIndex = last.index + 1;
    }
  }

  /**
   * History entries of occurrences after now (materialised ahead of their time, held or skipped): every record
   * from the first occurrence at or after now to the newest, by key range. Records are keyed by local date, in
   * the order of their occurrences' times, so the range holds all of them however many future dates were skipped.
   */
  async #futureRecords(recurrence: Recurrence, now: Date): Promise<OccurrenceRecord[]> {
    const first = occurrences(recurrence.rule, { from: now, limit: 1 })[0];
    if (!first) return [];
    const records = await this.ctx.store.occurrencesFrom(recurrence.id, { from: first.localDate });
    return records.filter((record) => record.at > now.toISOString());
  }
}
