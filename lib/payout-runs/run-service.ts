import type { Principal } from '../controls/index.js';
import { assertMayApprove, type GateLimits } from '../controls/index.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { IdempotencyConflictError, InvalidTransitionError, NotFoundError } from '../shared/errors.js';
import type { IdempotentCreateOutcome } from '../shared/idempotent-create.js';
import { fingerprint, ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import type { CursorPage } from '../shared/paging.js';
import { cancelRowPayouts, type RunPayouts } from './cancel-rows.js';
import { type PayoutRun, type RunRow, RunState, type RunWarning } from './model.js';
import { judgeRunApproval } from './run-gate.js';
import type { PayoutRunRecords, RunTransitionChanges } from './run-records.js';
import { FileClaimedError } from './run-store.js';
import { duplicateLines, newRun, RunWarningsError, validateRunRows } from './run-submission.js';
import { type RowResult, type RunView, rowResultsOf, runViewOf } from './run-view.js';

/** What the run service needs of the payouts: the engine's create (idempotent per key), read and cancel. */
export type { RunPayouts } from './cancel-rows.js';

export interface PayoutRunServiceOptions {
  readonly store: PayoutRunRecords;
  readonly payouts: RunPayouts;
  /** The gate's limits in force (each read when used: operators may change them while a run waits). */
  readonly limits: () => GateLimits;
  /** The provider's rate the workers keep to (requests/s), for the ETA; none when unset. */
  readonly providerRatePerSecond?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/**
 * Payroll runs: one file, validated whole, approved once as a whole, each row paid once as its own payout.
 *
 * `submit` validates every row before anything is stored (a 400 names each bad row and field), refuses duplicate
 * references, and asks for duplicate lines and earlier runs of the same rows to be acknowledged. The run's total
 * and each row pass the gate (`MoneyEntryPoint.PayoutRun`); a run whose total or any row reaches the approval
 * threshold waits in `pending_approval` for a second person (`approve`). `RunMaterialiser` (the every-minute sweep,
 * materialiser.ts) then creates each row's payout through the engine with the key `run:<runId>:<row>` and `approvedBy` the run's
 * approver, `pending` for the workers to send like every other payout.
 *
 * @example const { run } = await runs.submit({ entries, source: 'csv', fileSha256, actor, idempotencyKey: 'payroll-2026-06' });
 */
export class PayoutRunService {
  readonly #store: PayoutRunRecords;
  readonly #payouts: RunPayouts;
  readonly #limits: () => GateLimits;
  readonly #rate: number | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(options: PayoutRunServiceOptions) {
    this.#store = options.store;
    this.#payouts = options.payouts;
    this.#limits = options.limits;
    this.#rate = options.providerRatePerSecond;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * Accepts a run: every row validated, the gate asked, then stored. No payout is created and nothing is sent here.
   *
   * @throws ValidationError naming each bad row and field, each repeated reference, or a row above the maximum
   * @throws RunWarningsError for duplicate lines or an earlier run of the same rows, unless acknowledged
   * @throws IdempotencyConflictError when the key was used with other rows
   */
  async submit(input: {
    readonly entries: readonly unknown[];
    readonly source: 'csv' | 'json';
    readonly fileSha256: string;
    readonly actor: Principal;
    readonly idempotencyKey: string;
    readonly acknowledgeDuplicates?: boolean;
  }): Promise<{ readonly run: PayoutRun; readonly replayed: boolean }> {
    const now = this.#clock.now();
    const { rows: valid, firstHeld } = validateRunRows(
      this.#limits(),
      input.entries,
      input.source,
      input.actor,
      now,
    );
    const contentFingerprint = fingerprint(valid);
    const requestFingerprint = fingerprint({ rows: valid });
    const keyed = await this.#store.keyedRun(input.idempotencyKey);
    if (keyed) return this.#replay(keyed, requestFingerprint, input.idempotencyKey);

    const lines = duplicateLines(valid, input.source);
    let earlier = await this.#earlierRuns(contentFingerprint, lines, input.acknowledgeDuplicates);
    const runId = ulid(now);
    const rows: RunRow[] = valid.map((row) => ({ ...row, runId }));
    const runOf = (earlierRuns: readonly string[]) =>
      newRun(this.#limits(), {
        runId,
        now,
        valid,
        input,
        contentFingerprint,
        lines,
        earlier: earlierRuns,
        firstHeld,
      });
    let run = runOf(earlier);
    let stored: IdempotentCreateOutcome;
    try {
      // No earlier run seen: this run claims the file in its own transaction, so of two at once only one passes.
      stored = await this.#store.create(run, rows, input.idempotencyKey, requestFingerprint, {
        claimFile: earlier.length === 0,
      });
    } catch (error) {
      if (!(error instanceof FileClaimedError)) throw error;
      // A run of the same rows was stored meanwhile: it is an earlier run now, to acknowledge like any other.
      earlier = await this.#earlierRuns(contentFingerprint, lines, input.acknowledgeDuplicates);
      run = runOf(earlier);
      stored = await this.#store.create(run, rows, input.idempotencyKey, requestFingerprint);
    }
    if (!stored.created) {
      // A concurrent request with the same key stored its run first: that one is the answer.
      const winner = await this.#store.keyedRun(input.idempotencyKey);
      if (winner) return this.#replay(winner, requestFingerprint, input.idempotencyKey);
    }
    this.#logger.info('payout run accepted', {
      runId,
      rows: run.count,
      totalKobo: run.totalKobo,
      state: run.state,
    });
    return { run, replayed: false };
  }

  /**
   * The earlier runs of the same rows; with the duplicate lines, the warnings to acknowledge.
   *
   * @throws RunWarningsError when there are warnings and they are not acknowledged
   */
  async #earlierRuns(
    contentFingerprint: string,
    lines: readonly RunWarning[],
    acknowledged: boolean | undefined,
  ): Promise<string[]> {
    const earlier = await this.#store.runsWithContent(contentFingerprint);
    const warnings: RunWarning[] = [...lines];
    for (const runId of earlier) {
      warnings.push({
        kind: 'duplicate_run',
        runId,
        message: `the same rows were submitted before as run ${runId} under another Idempotency-Key: probably a duplicate run`,
      });
    }
    if (warnings.length > 0 && !acknowledged) throw new RunWarningsError(warnings);
    return earlier;
  }

  #replay(
    keyed: { readonly run: PayoutRun; readonly requestFingerprint?: string },
    requestFingerprint: string,
    idempotencyKey: string,
  ): { run: PayoutRun; replayed: true } {
    if (keyed.requestFingerprint !== requestFingerprint) {
      throw new IdempotencyConflictError('payout run', idempotencyKey, keyed.run.runId);
    }
    return { run: keyed.run, replayed: true };
  }

  /**
   * A second person releases a run held for approval: four eyes on the run, then the gate again with the limits in
   * force now, on the total and on every row. The rows then become payouts approved by this person. A total at or
   * above the second-approval threshold takes two approvals by two persons: the first is recorded
   * (`firstApproval`) and the run keeps waiting; the second releases it.
   *
   * @throws ApprovalForbiddenError for the requester or a system principal, a total above the approver's limit,
   *   or the first approver again
   * @throws ValidationError when the limits in force refuse a row (nothing changes)
   * @throws InvalidTransitionError unless the run waits for approval
   */
  async approve(runId: string, approver: Principal): Promise<PayoutRun> {
    const run = await this.#awaitingDecision(runId, approver, 'approved');
    const approval = {
      what: `payout run ${runId}`,
      stays: RunState.PendingApproval,
      approver,
      firstApproval: run.firstApproval,
      logger: this.#logger,
    };
    const releases = await judgeRunApproval(this.#limits(), run, approval, () => this.#store.allRows(runId));
    const at = this.#clock.now().toISOString();
    if (!releases) {
      // The first of two: recorded once; the run keeps waiting and no row becomes a payout.
      const firstApproval = { actor: approver, at };
      await this.#move(run, RunState.PendingApproval, { firstApproval, updatedAt: at });
      this.#logger.info('payout run approved first', { runId, approvedBy: approver.id });
      return { ...run, firstApproval, updatedAt: at };
    }
    await this.#move(run, RunState.Materialising, { approvedBy: approver, approvedAt: at, updatedAt: at });
    this.#logger.info('payout run approved', { runId, approvedBy: approver.id });
    return { ...run, state: RunState.Materialising, approvedBy: approver, approvedAt: at, updatedAt: at };
  }

  /**
   * Rejects a run waiting for approval: a second person's refusal, with the reason. It ends `cancelled` with its
   * `rejection`, for good: none of its rows ever becomes a payout. Its requester
   * withdraws their own with a cancel.
   *
   * @throws ApprovalForbiddenError (its requester, or not a person), InvalidTransitionError unless pending_approval
   */
  async reject(runId: string, approver: Principal, reason: string): Promise<PayoutRun> {
    const run = await this.#awaitingDecision(runId, approver, 'rejected');
    const at = this.#clock.now().toISOString();
    const changes = { rejection: { actor: approver, reason, at }, updatedAt: at };
    await this.#move(run, RunState.Cancelled, changes);
    this.#logger.info('payout run rejected', { runId, rejectedBy: approver.id });
    return { ...run, state: RunState.Cancelled, ...changes };
  }

  /**
   * Cancels a run before or while it sends: no further row becomes a payout, and every payout of it not yet claimed
   * is cancelled through the engine; payouts already sent (or being sent) stand.
   *
   * @throws InvalidTransitionError when the run is cancelled already
   */
  async cancel(
    runId: string,
    actor: Principal,
    reason?: string,
  ): Promise<{ run: PayoutRun; cancelled: number; standing: number }> {
    const run = await this.#load(runId);
    if (run.state === RunState.Cancelled) {
      throw new InvalidTransitionError('payout run', `payout run ${runId} is cancelled already`);
    }
    if (run.endedAt !== undefined) {
      throw new InvalidTransitionError('payout run', `payout run ${runId} has ended (${run.state})`);
    }
    const at = this.#clock.now().toISOString();
    const moved = await this.#store.transition(run, RunState.Cancelled, {
      cancelledBy: actor,
      cancelledAt: at,
      updatedAt: at,
      ...(reason !== undefined && { cancelReason: reason }),
    });
    if (!moved) return this.cancel(runId, actor, reason);
    // The state is written first: a materialisation in flight then fails its own conditional write and cancels
    // what it created; every payout recorded before it is found here.
    const rows = await this.#store.allRows(runId);
    const counts = await cancelRowPayouts(
      this.#payouts,
      rows,
      actor,
      reason ?? `payout run ${runId} cancelled`,
    );
    this.#logger.info('payout run cancelled', { runId, by: actor.id, ...counts });
    return {
      run: { ...run, state: RunState.Cancelled, cancelledBy: actor, cancelledAt: at, updatedAt: at },
      ...counts,
    };
  }

  /** @throws NotFoundError */
  async get(runId: string): Promise<RunView> {
    const run = await this.#load(runId);
    return runViewOf(run, await this.results(runId, run), this.#rate);
  }

  list(query: { limit: number; cursor?: string; state?: RunState }): Promise<CursorPage<PayoutRun>> {
    return this.#store.list(query);
  }

  /** A page of the run's rows with their payouts. @throws NotFoundError, InvalidCursorError */
  async payouts(runId: string, query: { limit: number; cursor?: string }): Promise<CursorPage<RowResult>> {
    const run = await this.#load(runId);
    const page = await this.#store.rows(runId, query);
    const items = await rowResultsOf(this.#payouts, run, page.items);
    return page.nextCursor ? { items, nextCursor: page.nextCursor } : { items };
  }

  /** Every row with its payout, in row order. @throws NotFoundError */
  async results(runId: string, known?: PayoutRun): Promise<RowResult[]> {
    const run = known ?? (await this.#load(runId));
    return rowResultsOf(this.#payouts, run, await this.#store.allRows(runId));
  }

  /**
   * The run read now for `approver` to decide: waiting for approval, and not their own.
   *
   * @throws NotFoundError; ApprovalForbiddenError (its requester, or not a person); InvalidTransitionError unless
   *   pending_approval
   */
  async #awaitingDecision(
    runId: string,
    approver: Principal,
    decision: 'approved' | 'rejected',
  ): Promise<PayoutRun> {
    const run = await this.#load(runId);
    const what = `payout run ${runId}`;
    assertMayApprove(run.requestedBy, approver, what, decision);
    if (run.state !== RunState.PendingApproval) {
      throw new InvalidTransitionError(
        'payout run',
        `${what} is ${run.state}; only a run waiting for approval can be ${decision}`,
      );
    }
    return run;
  }

  /** Moves the run as it was read. @throws InvalidTransitionError when it changed meanwhile */
  async #move(run: PayoutRun, to: RunState, changes: RunTransitionChanges): Promise<void> {
    if (!(await this.#store.transition(run, to, changes))) {
      throw new InvalidTransitionError(
        'payout run',
        `payout run ${run.runId} changed meanwhile; read it again`,
      );
    }
  }

  async #load(runId: string): Promise<PayoutRun> {
    const run = await this.#store.get(runId);
    if (!run) throw new NotFoundError('payout run', runId);
    return run;
  }
}
