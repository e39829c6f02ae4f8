import type { Principal } from '../controls/index.js';
import {
  assertMayApprove,
  type GateLimits,
  judge,
  judgeApproval,
  MoneyEntryPoint,
  type MoneyInstruction,
} from '../controls/index.js';
import {
  describePayout,
  type Payout,
  PayoutOrigin,
  PayoutStatus,
  TERMINAL_STATUSES,
} from '../payouts/index.js';
import { forEachAtOnce } from '../shared/at-once.js';
import { type Clock, systemClock } from '../shared/clock.js';
import {
  errorKind,
  IdempotencyConflictError,
  InvalidTransitionError,
  NotFoundError,
  ValidationError,
} from '../shared/errors.js';
import { fingerprint, ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import type { CursorPage } from '../shared/paging.js';
import { type FieldIssue, fieldIssues } from '../shared/validation.js';
import { cancelRowPayouts, type RunPayouts } from './cancel-rows.js';
import {
  type LargestRow,
  type PayoutRun,
  type RunRow,
  RunState,
  type RunStatus,
  type RunWarning,
} from './model.js';
import { type DynamoDbPayoutRunStore, FileClaimedError } from './run-store.js';
import { RunRowInputSchema, rowKobo } from './schemas.js';

/** What the run service needs of the payouts: the engine's create (idempotent per key), read and cancel. */
export type { RunPayouts } from './cancel-rows.js';

export interface PayoutRunServiceOptions {
  readonly store: DynamoDbPayoutRunStore;
  readonly payouts: RunPayouts;
  /** The gate's limits in force (each read when used: operators may change them while a run waits). */
  readonly limits: () => GateLimits;
  /** The provider's rate the workers keep to (requests/s), for the ETA; none when unset. */
  readonly providerRatePerSecond?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** A run's duplicate lines or an earlier run of the same rows, not acknowledged: nothing stored. */
export class RunWarningsError extends /* @__PURE__ */ errorKind(
  'RunWarningsError',
  'RUN_WARNINGS_UNACKNOWLEDGED',
) {
  constructor(readonly warnings: readonly RunWarning[]) {
    super(
      `the run has ${warnings.length} warning(s) to acknowledge with acknowledgeDuplicates: true (nothing was stored): ${warnings
        .map((warning) => warning.message)
        .join('; ')}`,
    );
  }
}

/** Counts of a run's rows by their payout's status (`not_created`: no payout yet; `refused`: none will be). */
export type RowStatus = PayoutStatus | 'not_created' | 'refused' | 'cancelled_unsent';

/** A run with its progress, as `GET /payout-runs/{id}` shows it. */
export interface RunView {
  readonly run: PayoutRun;
  readonly status: RunStatus;
  readonly counts: Partial<Record<RowStatus, number>>;
  readonly sentKobo: number;
  readonly failedKobo: number;
  readonly percentDone: number;
  /** Seconds until every row is sent at the provider's rate; absent when done or the rate is unknown. */
  readonly etaSeconds?: number;
}

/** One row with its payout, for the run's payouts page and results file. */
export interface RowResult {
  readonly row: RunRow;
  readonly status: RowStatus;
  readonly payout?: Payout;
}

/** Payouts read at once for a run's progress. */
const READS_AT_ONCE = 16;
const LARGEST_SHOWN = 5;

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
  readonly #store: DynamoDbPayoutRunStore;
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
    const { rows: valid, firstHeld } = this.#validate(input.entries, input.source, input.actor, now);
    const contentFingerprint = fingerprint(valid);
    const requestFingerprint = fingerprint({ rows: valid });
    const keyed = await this.#store.keyedRun(input.idempotencyKey);
    if (keyed) return this.#replay(keyed, requestFingerprint, input.idempotencyKey);

    const lines = duplicateLines(valid, input.source);
    let earlier = await this.#earlierRuns(contentFingerprint, lines, input.acknowledgeDuplicates);
    const runId = ulid(now);
    const rows: RunRow[] = valid.map((row) => ({ ...row, runId }));
    const runOf = (earlierRuns: readonly string[]) =>
      this.#newRun({ runId, now, valid, input, contentFingerprint, lines, earlier: earlierRuns, firstHeld });
    let run = runOf(earlier);
    let stored: Awaited<ReturnType<DynamoDbPayoutRunStore['create']>>;
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

  /** The run to store, judged by the gate: waiting for approval when its total or a row reaches the threshold. */
  #newRun(input: {
    readonly runId: string;
    readonly now: Date;
    readonly valid: readonly Omit<RunRow, 'runId'>[];
    readonly input: {
      readonly source: 'csv' | 'json';
      readonly fileSha256: string;
      readonly actor: Principal;
    };
    readonly contentFingerprint: string;
    readonly lines: readonly RunWarning[];
    readonly earlier: readonly string[];
    readonly firstHeld: number | undefined;
  }): PayoutRun {
    const { runId, valid, lines, earlier, firstHeld } = input;
    const { source, fileSha256, actor } = input.input;
    const at = input.now.toISOString();
    const totalKobo = valid.reduce((sum, row) => sum + row.amountKobo, 0);
    const judgement = judge(this.#limits(), runInstruction(totalKobo, actor));
    const approvalReason =
      judgement.approvalRequired !== undefined
        ? `the run's total ${judgement.approvalRequired}`
        : firstHeld !== undefined
          ? `row ${firstHeld + 1} is at or above the approval threshold`
          : undefined;
    return {
      runId,
      state: approvalReason ? RunState.PendingApproval : RunState.Materialising,
      count: valid.length,
      totalKobo,
      largestRows: largestRows(valid),
      fileSha256,
      contentFingerprint: input.contentFingerprint,
      source,
      requestedBy: actor,
      createdAt: at,
      updatedAt: at,
      ...(approvalReason && { approvalReason }),
      materialised: 0,
      ...((lines.length > 0 || earlier.length > 0) && {
        acknowledged: { duplicateLines: lines.length, duplicateRunIds: [...earlier] },
      }),
    };
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

  /** Every row through zod and the gate's maximum; every problem named (`rows[3].accountNumber` / `row 4.accountNumber`). */
  #validate(
    entries: readonly unknown[],
    source: 'csv' | 'json',
    actor: Principal,
    now: Date,
  ): { rows: Omit<RunRow, 'runId'>[]; firstHeld: number | undefined } {
    let firstHeld: number | undefined;
    const issues: FieldIssue[] = [];
    const prefixOf = (index: number) => (source === 'json' ? `rows[${index}]` : `row ${index + 1}`);
    const firstOfReference = new Map<string, number>();
    const limits = this.#limits();
    const rows = entries.map((entry, index) => {
      const prefix = prefixOf(index);
      const parsed = RunRowInputSchema.safeParse(entry);
      if (!parsed.success) {
        for (const issue of fieldIssues(parsed.error)) {
          issues.push({
            path: issue.path === '(root)' ? prefix : `${prefix}.${issue.path}`,
            message: issue.message,
          });
        }
        return undefined;
      }
      const input = parsed.data;
      const amountPath = `${prefix}.${input.amount !== undefined ? 'amount' : 'amountNaira'}`;
      const amountKobo = rowKobo(input);
      if (amountKobo <= 0) {
        issues.push({ path: amountPath, message: 'must be more than 0' });
        return undefined;
      }
      const first = firstOfReference.get(input.reference);
      if (first !== undefined) {
        issues.push({
          path: `${prefix}.reference`,
          message: `repeats the reference of ${prefixOf(first)}: each row's reference must be unique`,
        });
      } else firstOfReference.set(input.reference, index);
      if (input.scheduleAt && new Date(input.scheduleAt).getTime() <= now.getTime()) {
        issues.push({ path: `${prefix}.scheduleAt`, message: 'must be in the future' });
      }
      const row: Omit<RunRow, 'runId'> = {
        index,
        reference: input.reference,
        amountKobo,
        beneficiary: {
          bankCode: input.bankCode,
          accountNumber: input.accountNumber,
          accountName: input.accountName,
        },
        narration: input.narration,
        ...(input.scheduleAt && { scheduleAt: new Date(input.scheduleAt).toISOString() }),
      };
      try {
        // The per-payout maximum refuses the file now, naming the row; a row at the threshold holds the run.
        const { approvalRequired } = judge(limits, {
          ...rowInstruction(row, actor),
          amount: { kobo: amountKobo, source: { from: 'request' }, path: amountPath },
        });
        if (approvalRequired !== undefined && firstHeld === undefined) firstHeld = index;
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        issues.push(...error.issues);
      }
      return row;
    });
    if (issues.length > 0) throw ValidationError.of(issues);
    return { rows: rows.filter((row): row is Omit<RunRow, 'runId'> => row !== undefined), firstHeld };
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
    const run = await this.#load(runId);
    const what = `payout run ${runId}`;
    assertMayApprove(run.requestedBy, approver, what);
    if (run.state !== RunState.PendingApproval) {
      throw new InvalidTransitionError(
        'payout run',
        `${what} is ${run.state}; only a run waiting for approval can be approved`,
      );
    }
    const limits = this.#limits();
    const approval = {
      what,
      stays: RunState.PendingApproval,
      approver,
      firstApproval: run.firstApproval,
      logger: this.#logger,
    };
    // The total decides whether two approvals are needed (and the approver's limit); each row only the maximum.
    const { releases } = judgeApproval(limits, runInstruction(run.totalKobo, approver), approval);
    const issues: FieldIssue[] = [];
    for (const row of await this.#store.allRows(runId)) {
      try {
        judgeApproval(
          limits,
          {
            ...rowInstruction(row, approver),
            amount: { kobo: row.amountKobo, source: { from: 'request' }, path: `rows[${row.index}].amount` },
          },
          {
            ...approval,
            what: `${what} row ${row.index + 1} (${row.amountKobo} kobo)`,
            firstApproval: undefined,
          },
        );
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        issues.push(...error.issues);
      }
    }
    if (issues.length > 0) throw ValidationError.of(issues);
    const at = this.#clock.now().toISOString();
    if (!releases) {
      // The first of two: recorded once; the run keeps waiting and no row becomes a payout.
      const firstApproval = { actor: approver, at };
      const recorded = await this.#store.transition(run, RunState.PendingApproval, {
        firstApproval,
        updatedAt: at,
      });
      if (!recorded)
        throw new InvalidTransitionError('payout run', `${what} changed meanwhile; read it again`);
      this.#logger.info('payout run approved first', { runId, approvedBy: approver.id });
      return { ...run, firstApproval, updatedAt: at };
    }
    const moved = await this.#store.transition(run, RunState.Materialising, {
      approvedBy: approver,
      approvedAt: at,
      updatedAt: at,
    });
    if (!moved) throw new InvalidTransitionError('payout run', `${what} changed meanwhile; read it again`);
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
    const run = await this.#load(runId);
    const what = `payout run ${runId}`;
    assertMayApprove(run.requestedBy, approver, what, 'rejected');
    if (run.state !== RunState.PendingApproval) {
      throw new InvalidTransitionError(
        'payout run',
        `${what} is ${run.state}; only a run waiting for approval can be rejected`,
      );
    }
    const at = this.#clock.now().toISOString();
    const changes = { rejection: { actor: approver, reason, at }, updatedAt: at };
    const moved = await this.#store.transition(run, RunState.Cancelled, changes);
    if (!moved) throw new InvalidTransitionError('payout run', `${what} changed meanwhile; read it again`);
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
    return this.#viewOf(run, await this.results(runId, run));
  }

  list(query: { limit: number; cursor?: string; state?: RunState }): Promise<CursorPage<PayoutRun>> {
    return this.#store.list(query);
  }

  /** A page of the run's rows with their payouts. @throws NotFoundError, InvalidCursorError */
  async payouts(runId: string, query: { limit: number; cursor?: string }): Promise<CursorPage<RowResult>> {
    const run = await this.#load(runId);
    const page = await this.#store.rows(runId, query);
    const items = await this.#withPayouts(run, page.items);
    return page.nextCursor ? { items, nextCursor: page.nextCursor } : { items };
  }

  /** Every row with its payout, in row order. @throws NotFoundError */
  async results(runId: string, known?: PayoutRun): Promise<RowResult[]> {
    const run = known ?? (await this.#load(runId));
    return this.#withPayouts(run, await this.#store.allRows(runId));
  }

  async #withPayouts(run: PayoutRun, rows: readonly RunRow[]): Promise<RowResult[]> {
    const results: RowResult[] = rows.map((row) => ({ row, status: 'not_created' }));
    await forEachAtOnce(
      results.map((_, i) => i),
      READS_AT_ONCE,
      async (i) => {
        const row = rows[i] as RunRow;
        if (row.failure) results[i] = { row, status: 'refused' };
        else if (row.payoutId) {
          const payout = await this.#payouts.get(row.payoutId);
          results[i] = payout ? { row, status: payout.status, payout } : { row, status: 'not_created' };
        } else if (run.state === RunState.Cancelled) results[i] = { row, status: 'cancelled_unsent' };
      },
    );
    return results;
  }

  #viewOf(run: PayoutRun, results: readonly RowResult[]): RunView {
    const counts: Partial<Record<RowStatus, number>> = {};
    let sentKobo = 0;
    let failedKobo = 0;
    let done = 0;
    let attention = 0;
    for (const { row, status } of results) {
      counts[status] = (counts[status] ?? 0) + 1;
      if (status === PayoutStatus.Succeeded) sentKobo += row.amountKobo;
      if (status === PayoutStatus.Failed || status === 'refused' || status === PayoutStatus.Missed) {
        failedKobo += row.amountKobo;
        attention++;
      }
      if (status === PayoutStatus.NeedsReview || status === PayoutStatus.Unknown) attention++;
      if (
        status === 'refused' ||
        status === 'cancelled_unsent' ||
        (status !== 'not_created' && TERMINAL_STATUSES.has(status))
      )
        done++;
    }
    const percentDone = run.count === 0 ? 100 : Math.floor((done * 100) / run.count);
    const left = run.count - done;
    // Rows a person must look at (needs_review, unknown) are not done; when only they are left, the run needs attention.
    const waitingOnPeople = (counts.needs_review ?? 0) + (counts.unknown ?? 0);
    // A run's end is recorded once (run-ends.ts); until then a materialised run's status is read off its payouts.
    const status: RunStatus =
      run.state !== RunState.Materialised
        ? run.state
        : done + waitingOnPeople < run.count
          ? 'sending'
          : attention > 0
            ? 'needs_attention'
            : 'completed';
    return {
      run,
      status,
      counts,
      sentKobo,
      failedKobo,
      percentDone,
      ...(this.#rate !== undefined &&
        left > 0 &&
        run.state !== RunState.Cancelled && { etaSeconds: Math.ceil(left / this.#rate) }),
    };
  }

  async #load(runId: string): Promise<PayoutRun> {
    const run = await this.#store.get(runId);
    if (!run) throw new NotFoundError('payout run', runId);
    return run;
  }
}

/** The run as the gate weighs it: its total, set by the request, out of the main wallet. */
function runInstruction(totalKobo: number, releasedBy: Principal): MoneyInstruction {
  return {
    entryPoint: MoneyEntryPoint.PayoutRun,
    debits: { kind: 'main_wallet' },
    amount: { kobo: totalKobo, source: { from: 'request' }, path: 'total', isTotal: true },
    releasedBy,
  };
}

/** A row as the gate weighs it: the bank transfer its payout will be. */
function rowInstruction(
  row: Pick<RunRow, 'amountKobo' | 'beneficiary'>,
  releasedBy: Principal,
): MoneyInstruction {
  return describePayout(
    {
      instruction: { type: 'bank_transfer', beneficiary: row.beneficiary },
      amountKobo: row.amountKobo,
      origin: PayoutOrigin.Run,
    },
    releasedBy,
  );
}

/** Lines paying the same account the same amount, each group named once. */
function duplicateLines(rows: readonly Omit<RunRow, 'runId'>[], source: 'csv' | 'json'): RunWarning[] {
  const groups = new Map<string, number[]>();
  for (const row of rows) {
    const key = `${row.beneficiary.bankCode}/${row.beneficiary.accountNumber}/${row.amountKobo}`;
    groups.set(key, [...(groups.get(key) ?? []), row.index + 1]);
  }
  const name = (n: number) => (source === 'json' ? `rows[${n - 1}]` : `row ${n}`);
  return [...groups.values()]
    .filter((lines) => lines.length > 1)
    .map((lines) => ({
      kind: 'duplicate_line' as const,
      rows: lines,
      message: `${lines.map(name).join(', ')} pay the same account the same amount`,
    }));
}

function largestRows(rows: readonly Omit<RunRow, 'runId'>[]): LargestRow[] {
  return [...rows]
    .sort((a, b) => b.amountKobo - a.amountKobo || a.index - b.index)
    .slice(0, LARGEST_SHOWN)
    .map((row) => ({ row: row.index + 1, reference: row.reference, amountKobo: row.amountKobo }));
}
