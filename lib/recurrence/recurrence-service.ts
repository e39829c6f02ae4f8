import type { Principal } from '../controls/index.js';
import { type GateLimits, judge, MoneyEntryPoint } from '../controls/index.js';
import { CreatePayoutRequestSchema, describePayoutRequest } from '../payouts/index.js';
import type { Clock } from '../shared/clock.js';
import { IdempotencyConflictError, ValidationError } from '../shared/errors.js';
import { fingerprint, ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { getRecurrence } from './command-loop.js';
import { defaultRecurrenceConfig, type PayoutPort, type RecurrenceConfig } from './context.js';
import { type RecurrenceSweepOptions, type RecurrenceSweepReport, sweepRecurrences } from './materialise.js';
import { type Recurrence, RecurrenceStatus } from './model.js';
import { RecurrenceCommands } from './recurrence-commands.js';
import {
  type HistoryPage,
  type RecurrenceView,
  recurrenceHistory,
  viewRecurrence,
} from './recurrence-history.js';
import { occurrences, type RecurrenceRule } from './rules.js';
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

/**
 * Recurring payouts: a payout template plus a rule. Occurrences become ordinary scheduled payouts, each with
 * the key `<recurrenceId>:<localDate>`, so nothing a tick does twice can pay twice.
 *
 * @example
 * const service = new RecurrenceService({ store, payouts: engine, limits: engine.ctx.config, clock });
 * const { recurrence } = await service.create({ request, idempotencyKey: 'rent-2026', actor });
 * await service.sweep(); // from the every-minute schedule, before engine.sweep()
 */
export class RecurrenceService extends RecurrenceCommands {
  constructor(options: RecurrenceServiceOptions) {
    super({
      store: options.store,
      payouts: options.payouts,
      limits: options.limits,
      clock: options.clock,
      logger: options.logger ?? silentLogger,
      config: { ...defaultRecurrenceConfig, ...options.config },
    });
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

  /** @throws NotFoundError when no recurring payout has the id */
  get(id: string): Promise<Recurrence> {
    return getRecurrence(this.ctx, id);
  }

  /** The rule, its next occurrences, the newest of its history and its audit. */
  view(id: string): Promise<RecurrenceView> {
    return viewRecurrence(this.ctx, id);
  }

  /** The whole history, page by page, newest first: each page ends where `before` says the next one starts. */
  history(id: string, query: { limit: number; before?: string }): Promise<HistoryPage> {
    return recurrenceHistory(this.ctx, id, query);
  }

  list(query: { status?: RecurrenceStatus; limit: number; cursor?: string }): Promise<RecurrencePage> {
    return this.ctx.store.list(query);
  }

  /** One tick of the recurrence sweep; run it before the engine's sweep. */
  sweep(options?: RecurrenceSweepOptions): Promise<RecurrenceSweepReport> {
    return sweepRecurrences(this.ctx, options);
  }
}
