import { InvalidCursorError, NotFoundError } from '../../shared/errors.js';
import type { IdempotentCreateOutcome } from '../../shared/idempotent-create.js';
import { newestFirst, pageOf } from '../../shared/in-memory-pages.js';
import type { CursorPage } from '../../shared/paging.js';
import { type PayoutRun, type RunRow, RunState } from '../model.js';
import type { PayoutRunRecords, RunTransitionChanges } from '../run-records.js';
import { FileClaimedError } from '../run-store.js';

/** The payout runs' records in memory, to the port's contract (test/payout-runs/run-records.contract.test.ts). */
export class InMemoryPayoutRunStore implements PayoutRunRecords {
  readonly #runs = new Map<string, PayoutRun>();
  readonly #rows = new Map<string, RunRow[]>();
  readonly #keys = new Map<string, { readonly runId: string; readonly requestFingerprint: string }>();
  /** Run ids by content fingerprint, in the order they were stored, and the run holding each file's claim. */
  readonly #files = new Map<string, string[]>();
  readonly #claims = new Map<string, string>();

  async create(
    run: PayoutRun,
    rows: readonly RunRow[],
    idempotencyKey: string,
    requestFingerprint: string,
    options: { readonly claimFile?: boolean } = {},
  ): Promise<IdempotentCreateOutcome> {
    // The rows are written first, as the table's store writes them before its transaction.
    this.#rows.set(
      run.runId,
      [...rows].sort((a, b) => a.index - b.index),
    );
    const owner = this.#keys.get(idempotencyKey);
    if (owner) return { created: false, ownerId: owner.runId };
    if (options.claimFile && this.#claims.has(run.contentFingerprint)) throw new FileClaimedError();
    if (options.claimFile) this.#claims.set(run.contentFingerprint, run.runId);
    this.#keys.set(idempotencyKey, { runId: run.runId, requestFingerprint });
    this.#runs.set(run.runId, run);
    this.#files.set(run.contentFingerprint, [...(this.#files.get(run.contentFingerprint) ?? []), run.runId]);
    return { created: true };
  }

  async keyedRun(
    idempotencyKey: string,
  ): Promise<{ readonly run: PayoutRun; readonly requestFingerprint?: string } | undefined> {
    const key = this.#keys.get(idempotencyKey);
    const run = key && this.#runs.get(key.runId);
    return run && key ? { run, requestFingerprint: key.requestFingerprint } : undefined;
  }

  async runsWithContent(contentFingerprint: string): Promise<string[]> {
    return [...(this.#files.get(contentFingerprint) ?? [])].sort().slice(0, 20);
  }

  async get(runId: string): Promise<PayoutRun | undefined> {
    return this.#runs.get(runId);
  }

  async list(query: { limit: number; cursor?: string; state?: RunState }): Promise<CursorPage<PayoutRun>> {
    const runs = [...this.#runs.values()].filter(
      (run) => query.state === undefined || run.state === query.state,
    );
    return pageOf(
      newestFirst(
        runs,
        (run) => run.createdAt,
        (run) => run.runId,
      ),
      query,
    );
  }

  async rows(
    runId: string,
    query: { limit: number; cursor?: string; fromIndex?: number },
  ): Promise<CursorPage<RunRow>> {
    // The cursor names the next row's index, as the table's names the last row's key: `fromIndex` only starts.
    const from = query.cursor === undefined ? (query.fromIndex ?? 0) : rowCursorIndex(query.cursor);
    const rows = (this.#rows.get(runId) ?? []).filter((row) => row.index >= from);
    const page = rows.slice(0, query.limit);
    const next = rows[query.limit];
    return { items: page, ...(next && { nextCursor: `row:${next.index}` }) };
  }

  async allRows(runId: string): Promise<RunRow[]> {
    return [...(this.#rows.get(runId) ?? [])];
  }

  async recordRow(
    row: Pick<RunRow, 'runId' | 'index'>,
    outcome: { payoutId: string } | { failure: { code: string; message: string } },
  ): Promise<void> {
    const rows = this.#rows.get(row.runId) ?? [];
    const at = rows.findIndex((stored) => stored.index === row.index);
    const stored = rows[at];
    if (!stored) throw new NotFoundError('payout run row', `${row.runId}#${row.index}`);
    rows[at] = { ...stored, ...outcome };
  }

  async transition(
    run: Pick<PayoutRun, 'runId' | 'state' | 'materialised' | 'createdAt'>,
    to: RunState,
    changes: RunTransitionChanges,
  ): Promise<boolean> {
    const stored = this.#runs.get(run.runId);
    if (!stored || stored.state !== run.state || stored.materialised !== run.materialised) return false;
    if (changes.firstApproval && stored.firstApproval) return false;
    const written = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    this.#runs.set(run.runId, { ...stored, ...written, state: to });
    return true;
  }

  async dueForMaterialise(limit: number): Promise<string[]> {
    return [...this.#runs.values()]
      .filter((run) => run.state === RunState.Materialising)
      .sort((a, b) => `${a.createdAt}#${a.runId}`.localeCompare(`${b.createdAt}#${b.runId}`))
      .slice(0, limit)
      .map((run) => run.runId);
  }
}

function rowCursorIndex(cursor: string): number {
  const match = /^row:(\d+)$/.exec(cursor);
  if (!match) throw new InvalidCursorError('not a cursor of this run');
  return Number(match[1]);
}
