import { MoneyError, toKobo } from '../../money.js';
import {
  type ProviderClient,
  ProviderError,
  ProviderRejectedError,
  type TransactionDetail,
  type WalletTransaction,
  type WalletTransactionListParams,
} from '../../provider/index.js';
import {
  type FindOutcome,
  payoutMarker,
  providerAttemptOf,
  type RecordCheck,
  type SearchWindow,
} from '../gateway.js';
import type { Payout, ProviderReceipt } from '../model.js';
import {
  attemptOfMarker,
  carriesMarker,
  confirmsWallet,
  describeCandidates,
  type MatchableRecord,
  mismatchOf,
  summarise,
  walletConfirmationOf,
} from './record-match.js';

/** Bounds a reconciliation look-up: past this many records the window is too busy to prove absence. */
const MAX_LOOKUP_PAGES = 50;
const LOOKUP_PAGE_SIZE = 100;
/** Around a record read by id, where its paired record on a named wallet is looked for. */
const WALLET_PAIR_SLACK_MS = 60_000;

/**
 * Finds a payout attempt's record among the provider's wallet transactions, and checks a record a person names,
 * by the exact matching of `record-match.ts` (marker as the narration's last word, amount, destination, metadata).
 */
export class ProviderRecordSearch {
  constructor(
    private readonly client: Pick<ProviderClient, 'transactions'>,
    private readonly options: { requestTimeoutMs?: number } = {},
  ) {}

  async find(payout: Payout, window: SearchWindow): Promise<FindOutcome> {
    const attemptNumber = window.attemptNumber ?? 1;
    const marker = payoutMarker(payout.id, attemptNumber);
    const listed = await this.#listCarrying(
      { type: 'DEBIT', startDate: window.from, endDate: window.to },
      (record) => carriesMarker(payout, attemptNumber, record),
      window.signal,
    );
    if (listed.kind === 'lookup_failed') return listed;
    const candidates = [...listed.records.values()];
    const checked = await this.#checkAll(payout, candidates, window);
    if (checked.kind === 'lookup_failed') return checked;
    const summaries = checked.results.map(({ record, mismatch }) => summarise(record, mismatch));
    const matching = checked.results.filter(({ mismatch }) => mismatch === '');
    if (summaries.some((summary) => summary.mismatch)) {
      return {
        kind: 'ambiguous',
        detail: `${summaries.length} debit record(s) carry ${marker} and not all match the payout: ${describeCandidates(summaries)}`,
        candidates: summaries,
      };
    }
    if (matching.length > 1) {
      return {
        kind: 'ambiguous',
        detail: `${matching.length} debit records carry ${marker}: ${describeCandidates(summaries)}`,
        candidates: summaries,
      };
    }
    const [match] = matching;
    if (match) {
      const summary = summarise(match.record);
      if (match.record.status !== 'SUCCESS') {
        return {
          kind: 'ambiguous',
          detail: `record with ${marker} is not final: ${describeCandidates([summary])}`,
          candidates: [summary],
        };
      }
      return { kind: 'found', receipt: receiptOfRecord(match.record), record: summary };
    }
    if (!listed.complete) {
      return {
        kind: 'lookup_failed',
        code: 'LOOKUP_WINDOW_TOO_LARGE',
        message: `more than ${MAX_LOOKUP_PAGES * LOOKUP_PAGE_SIZE} debits in the window; absence not proven`,
      };
    }
    return { kind: 'absent' };
  }

  async check(payout: Payout, transactionId: string): Promise<RecordCheck> {
    let record: TransactionDetail;
    try {
      record = (await this.client.transactions.info({ transactionId }, this.#options())).data.transaction;
    } catch (error) {
      // 400: the provider refuses the id's shape, so no such transaction exists either.
      if (error instanceof ProviderRejectedError && (error.status === 404 || error.status === 400)) {
        return { kind: 'not_found', reason: `the provider has no transaction ${transactionId}` };
      }
      return lookupFailed(error);
    }
    const attemptNumber = attemptOfMarker(payout, record.narration);
    if (attemptNumber === undefined || attemptNumber > providerAttemptOf(payout)) {
      return {
        kind: 'mismatch',
        reason: `its narration does not end with a marker of this payout's attempts (po_${payout.id}[_n])`,
        record: summarise(record),
        receipt: receiptOfRecord(record),
      };
    }
    if (record.status !== 'SUCCESS') {
      return {
        kind: 'mismatch',
        reason: `status ${record.status}, not SUCCESS`,
        record: summarise(record),
        receipt: receiptOfRecord(record),
        attemptNumber,
      };
    }
    const around = new Date(record.createdAt).getTime();
    const window = {
      from: new Date(around - WALLET_PAIR_SLACK_MS).toISOString(),
      to: new Date(around + WALLET_PAIR_SLACK_MS).toISOString(),
    };
    const checked = await this.#checkAll(payout, [record], window);
    if (checked.kind === 'lookup_failed') return checked;
    const mismatch = checked.results[0]?.mismatch ?? '';
    if (mismatch !== '') {
      return {
        kind: 'mismatch',
        reason: mismatch,
        record: summarise(record),
        receipt: receiptOfRecord(record),
        attemptNumber,
      };
    }
    return { kind: 'matches', receipt: receiptOfRecord(record), attemptNumber, record: summarise(record) };
  }

  /** Each candidate with what disagrees (empty when it matches), the named wallet confirmed where needed. */
  async #checkAll(
    payout: Payout,
    candidates: readonly MatchableRecord[],
    window: { from: string; to: string; signal?: AbortSignal },
  ): Promise<
    | { kind: 'checked'; results: { record: MatchableRecord; mismatch: string }[] }
    | Extract<FindOutcome, { kind: 'lookup_failed' }>
  > {
    const results = candidates.map((record) => ({ record, mismatch: mismatchOf(payout, record) }));
    const confirmation = walletConfirmationOf(payout.instruction);
    const unconfirmed = results.filter(({ mismatch }) => mismatch === '');
    if (!confirmation || unconfirmed.length === 0) return { kind: 'checked', results };
    const onWallet = await this.#listCarrying(
      {
        type: confirmation.type,
        walletId: confirmation.walletId,
        startDate: window.from,
        endDate: window.to,
      },
      (record) => unconfirmed.some(({ record: debit }) => confirmsWallet(debit, record, confirmation)),
      window.signal,
    );
    if (onWallet.kind === 'lookup_failed') return onWallet;
    const confirming = [...onWallet.records.values()];
    return {
      kind: 'checked',
      results: results.map((result) =>
        result.mismatch !== '' ||
        confirming.some((record) => confirmsWallet(result.record, record, confirmation))
          ? result
          : {
              ...result,
              mismatch: `no ${confirmation.type} of this operation on wallet ${confirmation.walletId}`,
            },
      ),
    };
  }

  /**
   * Walks every page of a wallet-transaction listing, keeping the records `keep` accepts. Pages are walked here
   * rather than with `listAllWallet`: absence proves failure only if the walk reached the last page, and the
   * auto-pager does not say whether its page bound stopped it.
   */
  async #listCarrying(
    filter: Omit<WalletTransactionListParams, 'page' | 'perPage'>,
    keep: (record: WalletTransaction) => boolean,
    signal?: AbortSignal,
  ): Promise<
    | { kind: 'listed'; records: Map<string, WalletTransaction>; complete: boolean }
    | Extract<FindOutcome, { kind: 'lookup_failed' }>
  > {
    // Keyed by record id: pages shift while new records arrive, so one record can show on two pages.
    const records = new Map<string, WalletTransaction>();
    try {
      for (let page = 1; ; page++) {
        const result = await this.client.transactions.listWallet(
          { ...filter, page, perPage: LOOKUP_PAGE_SIZE },
          this.#options(signal),
        );
        for (const record of result.items) if (keep(record)) records.set(record.id, record);
        if (page >= result.pagination.totalPages || result.items.length === 0) {
          return { kind: 'listed', records, complete: true };
        }
        if (page >= MAX_LOOKUP_PAGES) return { kind: 'listed', records, complete: false };
      }
    } catch (error) {
      return lookupFailed(error);
    }
  }

  #options(signal?: AbortSignal) {
    return {
      ...(this.options.requestTimeoutMs && { timeoutMs: this.options.requestTimeoutMs }),
      ...(signal && { signal }),
    };
  }
}

function lookupFailed(error: unknown): Extract<FindOutcome, { kind: 'lookup_failed' }> {
  return {
    kind: 'lookup_failed',
    code: error instanceof ProviderError ? error.code : 'LOOKUP_ERROR',
    message: error instanceof Error ? error.message : 'look-up failed',
  };
}

/** The receipt a provider record proves: its id, status and charges as the provider recorded them. */
export function receiptOfRecord(record: MatchableRecord): ProviderReceipt {
  const reference = typeof record.reference === 'string' ? record.reference : undefined;
  const sessionId = typeof record.sessionId === 'string' ? record.sessionId : undefined;
  const charges = typeof record.charges === 'number' ? record.charges : 0;
  let chargesKobo = 0;
  try {
    chargesKobo = toKobo(charges);
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
  }
  return {
    transactionId: record.id,
    status: record.status,
    chargesKobo,
    paidAt: record.createdAt,
    ...(reference && { reference }),
    ...(sessionId && { sessionId }),
  };
}
