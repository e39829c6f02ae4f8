import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { fromPayoutItem, PayoutOrigin } from '../payouts/index.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { type PayoutRun, type RowEnd, RunState } from './model.js';
import { type RunEndStore, runOfItem } from './run-end-store.js';
import type { PayoutRunRecords } from './run-records.js';

/** The part of a table stream record the run's bookkeeping reads (images as the stream carries them). */
export interface RunStreamRecord {
  readonly eventName?: string;
  readonly dynamodb?: {
    readonly NewImage?: Readonly<Record<string, object>>;
    readonly OldImage?: Readonly<Record<string, object>>;
  };
}

/** A payout's statuses that end its row, for the run. `unknown` does not: the reconciler decides it, unattended. */
const PAYOUT_ENDS: Readonly<Record<string, RowEnd>> = {
  succeeded: 'succeeded',
  failed: 'failed',
  missed: 'missed',
  cancelled: 'cancelled',
  needs_review: 'needs_review',
};

/** A run row's payout key, `run:<runId>:<index>` (model.ts `rowPayoutKey`). */
const ROW_PAYOUT_KEY = /^run:([0-9A-HJKMNP-TV-Z]{26}):(\d{1,5})$/;

const decode = (image: Readonly<Record<string, object>> | undefined) =>
  image ? unmarshall(image as Record<string, AttributeValue>) : undefined;

/**
 * Ends runs, durably and once, from the table's stream (the publisher of domain events, functions/publish-domain-events.ts,
 * runs this on every record before publishing its event).
 *
 * Why the stream and not the every-minute sweep: each row's end costs one small transaction when it happens (its
 * marker and the run's counters), so a run's end is noticed within the stream's delay (seconds) at a cost linear
 * in its rows; a sweep would re-read every sending run's payouts each minute (a 10,000-row run, 10,000 reads a
 * minute while it sends), and the sweep's bundle has no room to spare. The stream carries every source of a row's
 * end: its payout reaching a final status, its row recorded `refused` by the materialiser (so a run whose last
 * rows were all refused, with no payout and no payout record, still ends, and a sweep that crashed mid-batch
 * left those rows recorded: its next tick advances the mark, whose record ends the run), and the run's own
 * changes: its move to `materialised` or `cancelled`, and each count onto it, after which the run is ended as
 * soon as every row has (`endRun`, a conditional write on the run item: once). A cancelled run's rows that never
 * became payouts are counted `cancelled_unsent` when the cancel's record arrives.
 *
 * Every step is idempotent (per-row markers, conditional writes): a record delivered twice, or retried after a
 * failure, counts nothing twice and ends no run twice.
 */
export class RunEndBookkeeper {
  readonly #store: PayoutRunRecords;
  readonly #ends: RunEndStore;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(options: {
    store: PayoutRunRecords;
    ends: RunEndStore;
    clock?: Clock;
    logger?: Logger;
  }) {
    this.#store = options.store;
    this.#ends = options.ends;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The bookkeeping one table change calls for, if any. @throws on a DynamoDB failure (the record is retried) */
  async onRecord(record: RunStreamRecord): Promise<void> {
    if (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') return;
    const item = decode(record.dynamodb?.NewImage);
    if (!item) return;
    const old = decode(record.dynamodb?.OldImage);
    const at = this.#clock.now().toISOString();
    if (item.entity === 'payout' && old?.status !== item.status) {
      // `status` keeps its name in the stored item; the rest is read through the payout codec (stored names).
      const end = PAYOUT_ENDS[String(item.status)];
      if (!end) return;
      const payout = fromPayoutItem(item);
      const key = ROW_PAYOUT_KEY.exec(payout.idempotencyKey);
      if (payout.origin !== PayoutOrigin.Run || !key) return;
      await this.#ends.countRowEnd(
        { runId: key[1] as string, index: Number(key[2]), amountKobo: payout.amountKobo },
        end,
        at,
      );
    } else if (item.entity === 'payout-run-row' && item.failure !== undefined && old?.failure === undefined) {
      await this.#ends.countRowEnd(
        { runId: String(item.runId), index: Number(item.index), amountKobo: Number(item.amountKobo) },
        'refused',
        at,
      );
    } else if (item.entity === 'payout-run') {
      const run = runOfItem(item);
      if (run.state === RunState.Cancelled && old?.state !== RunState.Cancelled) {
        await this.#countUnsent(run, at);
      }
      await this.#endIfDone(run, at);
    }
  }

  /** A cancelled run's rows that never became payouts (nor were refused) end `cancelled_unsent`. */
  async #countUnsent(run: PayoutRun, at: string): Promise<void> {
    let unsent = 0;
    for (const row of await this.#store.allRows(run.runId)) {
      if (row.payoutId !== undefined || row.failure !== undefined) continue;
      if (await this.#ends.countRowEnd(row, 'cancelled_unsent', at, { onlyWithoutPayout: true })) unsent++;
    }
    this.#logger.info('payout run cancelled: rows never sent counted', { runId: run.runId, unsent });
  }

  /** Records the run's end once every row has ended; its record then publishes the run's end event. */
  async #endIfDone(run: PayoutRun, at: string): Promise<void> {
    if (run.endedAt !== undefined || (run.ends?.rows ?? 0) < run.count) return;
    if (run.state !== RunState.Materialised && run.state !== RunState.Cancelled) return;
    const to =
      run.state === RunState.Cancelled
        ? RunState.Cancelled
        : (run.ends?.attention ?? 0) > 0
          ? RunState.NeedsAttention
          : RunState.Completed;
    if (await this.#ends.endRun(run, to, at)) {
      this.#logger.info('payout run ended', { runId: run.runId, state: to, ...run.ends?.byEnd });
    }
  }
}
