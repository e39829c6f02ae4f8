import { type CreatePayoutCommand, PayoutOrigin } from '../payouts/index.js';
import { forEachAtOnce } from '../shared/at-once.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { ValidationError } from '../shared/errors.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { cancelRowPayouts, type RunPayouts } from './cancel-rows.js';
import { type PayoutRun, type RunRow, RunState, rowPayoutKey } from './model.js';
import type { PayoutRunRecords } from './run-records.js';

/**
 * Rows a tick turns into payouts across every run, where the stage does not say (`RUN_ROWS_PER_TICK`, set by the
 * stack from the fleet's drain rate: infra/config/submission-sizing.ts). Due runs share it (docs/payout-runs.md,
 * "Fairness").
 */
export const DEFAULT_RUN_ROWS_PER_TICK = 500;
/** Payouts created at once while materialising. */
const CREATES_AT_ONCE = 16;
/**
 * The sweep starts no run and no row with less than this left before its deadline: a run's two reads, one row (the
 * engine's create, its read after a conflict, the row's record) and the run's transition, each call to its deadline
 * (test/infra/handler-limits.test.ts). The sweep's 2-minute timeout leaves 25 s to start rows, hundreds of them.
 */
export const RUN_STOP_STARTING_BEFORE_DEADLINE_MS = 95_000;

export interface RunMaterialiserOptions {
  readonly store: PayoutRunRecords;
  readonly payouts: RunPayouts;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/**
 * Turns approved runs' rows into payouts, a bounded batch per tick (the every-minute sweep). Apart from the run
 * service so the sweep carries only this, not the file's validation and the run's views.
 *
 * @example await new RunMaterialiser({ store, payouts }).materialiseDue({ stopStartingAt: deadline });
 */
export class RunMaterialiser {
  readonly #store: PayoutRunRecords;
  readonly #payouts: RunPayouts;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(options: RunMaterialiserOptions) {
    this.#store = options.store;
    this.#payouts = options.payouts;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * One tick's materialisation (the every-minute sweep): at most `rowsInAll` rows (DEFAULT_RUN_ROWS_PER_TICK), the
   * runs waiting sharing them equally, oldest first (a run that needs less leaves the rest to those after it),
   * each row created through the engine with its own key. A crash anywhere is safe: a re-run creates the same
   * payouts again as replays and records them again. `rowsPerRun` caps one run's share (tests).
   */
  async materialiseDue(options: { stopStartingAt?: number; rowsPerRun?: number; rowsInAll?: number } = {}) {
    let budget = options.rowsInAll ?? DEFAULT_RUN_ROWS_PER_TICK;
    // The deadline is the invocation's, in real time, whatever clock the records are stamped with.
    const timeLeft = () => options.stopStartingAt === undefined || Date.now() < options.stopStartingAt;
    const report = { runs: 0, created: 0, refused: 0, completed: 0 };
    const due = await this.#store.dueForMaterialise(20);
    for (const [position, runId] of due.entries()) {
      if (budget <= 0 || !timeLeft()) break;
      const share = Math.ceil(budget / (due.length - position));
      const done = await this.#materialiseRun(runId, Math.min(options.rowsPerRun ?? share, share), timeLeft);
      report.runs++;
      report.created += done.created;
      report.refused += done.refused;
      if (done.completed) report.completed++;
      budget -= done.created + done.refused;
    }
    return report;
  }

  async #materialiseRun(runId: string, limit: number, timeLeft: () => boolean) {
    const result = { created: 0, refused: 0, completed: false };
    const run = await this.#store.get(runId);
    if (!run || run.state !== RunState.Materialising) return result;
    const page = await this.#store.rows(runId, { limit, fromIndex: run.materialised });
    const createdIds = new Map<number, string>();
    let attempted = 0;
    // Rows are taken in file order, so those attempted before time ran out are a prefix of the page.
    await forEachAtOnce(page.items, CREATES_AT_ONCE, async (row) => {
      if (!timeLeft()) return;
      attempted++;
      if (row.payoutId !== undefined || row.failure !== undefined) {
        if (row.payoutId) result.created++;
        else result.refused++;
        return;
      }
      try {
        const { payout } = await this.#payouts.create(rowCommand(run, row));
        await this.#store.recordRow(row, { payoutId: payout.id });
        createdIds.set(row.index, payout.id);
        result.created++;
      } catch (error) {
        // The limits in force now refuse the row (lowered since the run was accepted): it fails, the rest go on.
        if (!(error instanceof ValidationError)) throw error;
        await this.#store.recordRow(row, { failure: { code: error.code, message: error.message } });
        result.refused++;
      }
    });
    const mark = run.materialised + attempted;
    const finished = mark >= run.count;
    const at = this.#clock.now().toISOString();
    const moved = await this.#store.transition(
      run,
      finished ? RunState.Materialised : RunState.Materialising,
      {
        materialised: mark,
        updatedAt: at,
      },
    );
    if (!moved) {
      const now = await this.#store.get(runId);
      if (now?.state === RunState.Cancelled) {
        // Cancelled while this batch was created: its payouts are cancelled too, unless already claimed.
        await cancelRowPayouts(
          this.#payouts,

          page.items.map((row) => {
            const payoutId = row.payoutId ?? createdIds.get(row.index);
            return payoutId ? { ...row, payoutId } : row;
          }),
          now.cancelledBy ?? run.requestedBy,
          `payout run ${runId} cancelled`,
        );
      }
      return result;
    }
    result.completed = finished;
    this.#logger.info('payout run materialised a batch', { runId, through: mark, of: run.count });
    return result;
  }
}

/** The engine's create of a row's payout: its own key, the run's requester, approved by the run's approver. */
function rowCommand(run: PayoutRun, row: RunRow): CreatePayoutCommand {
  return {
    request: {
      type: 'bank_transfer',
      amount: row.amountKobo,
      currency: 'NGN',
      narration: row.narration,
      beneficiary: row.beneficiary,
      metadata: { runId: run.runId, runRow: row.index + 1, reference: row.reference },
      ...(row.scheduleAt && { scheduleAt: row.scheduleAt }),
    },
    idempotencyKey: rowPayoutKey(run.runId, row.index),
    origin: PayoutOrigin.Run,
    actor: run.requestedBy,
    sourceRef: `run:${run.runId}`,
    // Every row of the run on one id: "what happened to run X" is one query of the logs. A ULID is of the
    // correlation id's characters already (correlationIdFrom, which the sweep's bundle need not carry).
    correlationId: `run:${run.runId}`,
    ...(run.approvedBy && { approvedBy: run.approvedBy }),
  };
}
