import { MoneyError, toKobo } from '../money.js';
import { attemptOfMarker, mismatchOf, type Payout, PayoutStatus } from '../payouts/index.js';
import { REFUND_RECORD_CATEGORY, type WalletTransaction } from '../provider/index.js';
import type { AcceptedRefund } from '../refunds/index.js';
import { type StatementLine, StatementLineKind } from './model.js';

/** What one day's reconciliation works on: the provider's records and our payouts they or the day name. */
export interface DayInput {
  /** Every record the provider lists for the day (DEBIT and CREDIT, every wallet). */
  readonly records: readonly WalletTransaction[];
  /**
   * Records just outside the day, which only explain a payout of ours (a payout recorded at 23:59:59 whose record
   * is stamped a second after midnight is not missing); they are never lines of the day themselves.
   */
  readonly nearby: readonly WalletTransaction[];
  /** Every payout a record's marker names, and every expected one, by id. */
  readonly payouts: ReadonlyMap<string, Payout>;
  /** The payouts we record as paid on the day: each must have its record at the provider. */
  readonly expected: readonly Payout[];
  /** Our refunds the provider accepted that the refund records (of the day and nearby) name, by provider refund id. */
  readonly refunds?: ReadonlyMap<string, AcceptedRefund>;
  /** The refunds the provider accepted on the day, by its answer: each must have its record at the provider. */
  readonly expectedRefunds?: readonly AcceptedRefund[];
}

/** A payout the provider paid more than once: the record we hold as its payment and the others. */
export interface FoundDouble {
  readonly payout: Payout;
  readonly extra: readonly { readonly record: WalletTransaction; readonly attempt: number }[];
}

export interface DayMatch {
  readonly lines: StatementLine[];
  readonly doubles: FoundDouble[];
}

/**
 * Whether a record is a refund's debit (CONTRACT.md, "A refund's wallet record"): its `reference` is then the
 * provider's refund id. No payout writes this category, so such a record is never a payout's.
 */
export function isRefundRecord(record: WalletTransaction): boolean {
  return record.type === 'DEBIT' && record.category === REFUND_RECORD_CATEGORY;
}

/** `po_<payoutId>` or `po_<payoutId>_<n>` as a narration's last word: the payout id it names. */
export function payoutIdOfMarker(narration: string | undefined): string | undefined {
  const last = narration?.trim().split(/\s+/).at(-1);
  return last ? /^po_([0-9A-Za-z]{10,40})(?:_\d{1,3})?$/.exec(last)?.[1] : undefined;
}

function koboOrUndefined(amount: number): number | undefined {
  try {
    return toKobo(amount);
  } catch (error) {
    if (error instanceof MoneyError) return undefined;
    throw error;
  }
}

/** The line fields every record line carries. */
function recordFields(record: WalletTransaction) {
  return {
    key: record.id,
    transactionId: record.id,
    type: record.type,
    category: record.category,
    status: record.status,
    amountKobo: koboOrUndefined(record.amount) ?? 0,
    chargesKobo: koboOrUndefined(record.charges) ?? 0,
    destination: `${record.beneficiaryBankCode}/${record.beneficiaryAccountNumber}`,
    ...(record.narration !== undefined && { narration: record.narration }),
    createdAt: record.createdAt,
  };
}

/** Statuses in which we hold a payout as paid (a paid-twice one is in `needs_review` with its receipt kept). */
function heldAsPaid(payout: Payout): boolean {
  return (
    payout.status === PayoutStatus.Succeeded ||
    (payout.status === PayoutStatus.NeedsReview && payout.receipt !== undefined)
  );
}

/**
 * Matches one day of the provider's records to our payouts and refunds, both ways: every record is explained by
 * exactly one payout (by its marker, then amount, destination and type through the engine's own `mismatchOf`,
 * then its fee) or one refund (a refund record by its provider refund id, then its amount), and every payout we
 * hold as paid, and every refund the provider accepted, on the day has its record. Pure: the service reads and
 * writes.
 */
export function matchDay(input: DayInput): DayMatch {
  const lines: StatementLine[] = [];
  const doubles: FoundDouble[] = [];
  const debitsByPayout = new Map<string, WalletTransaction[]>();
  const debitsByRefund = new Map<string, { refund: AcceptedRefund; debits: WalletTransaction[] }>();

  for (const record of input.records) {
    if (isRefundRecord(record)) {
      const refund = input.refunds?.get(record.reference);
      const amountKobo = koboOrUndefined(record.amount);
      if (!refund) {
        lines.push({
          kind: StatementLineKind.ProviderNotOurs,
          ...recordFields(record),
          detail: `a refund debit no refund of ours explains: no refund of ours was accepted as ${record.reference}`,
        });
      } else if (amountKobo !== refund.amountKobo) {
        lines.push({
          kind: StatementLineKind.AmountMismatch,
          ...recordFields(record),
          refundId: refund.refundId,
          expectedAmountKobo: refund.amountKobo,
          detail: `the debit of refund ${refund.refundId} (provider refund ${refund.providerRefundId}) is ${amountKobo ?? record.amount} kobo, not ${refund.amountKobo}`,
        });
      } else {
        const entry = debitsByRefund.get(refund.refundId) ?? { refund, debits: [] };
        entry.debits.push(record);
        debitsByRefund.set(refund.refundId, entry);
      }
      continue;
    }
    const payoutId = payoutIdOfMarker(record.narration);
    const payout = payoutId === undefined ? undefined : input.payouts.get(payoutId);
    const attempt = payout ? attemptOfMarker(payout, record.narration) : undefined;
    if (!payout || attempt === undefined) {
      const named = payoutId ? `; its narration names po_${payoutId}, which is no payout of ours` : '';
      lines.push(
        record.type === 'DEBIT'
          ? {
              kind: StatementLineKind.ProviderNotOurs,
              ...recordFields(record),
              detail: `a debit no payout of ours explains${named}`,
            }
          : {
              kind: StatementLineKind.OtherCredit,
              ...recordFields(record),
              detail: `a credit no payout of ours made (${record.category})${named}`,
            },
      );
      continue;
    }
    if (record.type !== 'DEBIT') {
      // The credit leg of a wallet payout (transfer, credit, enable, child debit): its debit is matched on its own.
      const amountKobo = koboOrUndefined(record.amount);
      lines.push(
        amountKobo === payout.amountKobo
          ? {
              kind: StatementLineKind.Matched,
              ...recordFields(record),
              payoutId: payout.id,
              attempt,
              detail: `the credit leg of payout ${payout.id}`,
            }
          : {
              kind: StatementLineKind.AmountMismatch,
              ...recordFields(record),
              payoutId: payout.id,
              attempt,
              expectedAmountKobo: payout.amountKobo,
              detail: `the credit leg of payout ${payout.id} is ${amountKobo ?? record.amount} kobo, not ${payout.amountKobo}`,
            },
      );
      continue;
    }
    const mismatch = mismatchOf(payout, record);
    if (mismatch !== '') {
      lines.push({
        kind: StatementLineKind.AmountMismatch,
        ...recordFields(record),
        payoutId: payout.id,
        attempt,
        expectedAmountKobo: payout.amountKobo,
        detail: `carries the marker of payout ${payout.id} but disagrees: ${mismatch}`,
      });
      continue;
    }
    const debits = debitsByPayout.get(payout.id) ?? [];
    debits.push(record);
    debitsByPayout.set(payout.id, debits);
  }

  for (const [payoutId, debits] of debitsByPayout) {
    const payout = input.payouts.get(payoutId) as Payout;
    const paid = debits.filter((record) => record.status === 'SUCCESS');
    // The record we hold as the payment: the receipt's, else the first listed (oldest: the list is newest first).
    const kept =
      paid.find((record) => record.id === payout.receipt?.transactionId) ?? paid.at(-1) ?? debits[0];
    for (const record of debits) {
      const attempt = attemptOfMarker(payout, record.narration) ?? 1;
      const fields = { ...recordFields(record), payoutId, attempt };
      if (record !== kept && record.status === 'SUCCESS') {
        lines.push({
          kind: StatementLineKind.Duplicate,
          ...fields,
          detail: `a second payment of payout ${payoutId}: ${paid.length} debits carry its markers (${paid.map((r) => r.id).join(', ')}); we hold ${kept?.id} as its payment`,
        });
        continue;
      }
      if (!heldAsPaid(payout)) {
        lines.push({
          kind: StatementLineKind.StatusMismatch,
          ...fields,
          detail: `the provider lists a ${record.status} debit of payout ${payoutId}, which we record as ${payout.status}`,
        });
        continue;
      }
      const expectedCharges = payout.receipt?.chargesKobo;
      if (
        expectedCharges !== undefined &&
        payout.receipt?.transactionId === record.id &&
        fields.chargesKobo !== expectedCharges
      ) {
        lines.push({
          kind: StatementLineKind.FeeMismatch,
          ...fields,
          expectedChargesKobo: expectedCharges,
          detail: `charged ${fields.chargesKobo} kobo, but the provider answered ${expectedCharges} kobo when payout ${payoutId} was paid`,
        });
        continue;
      }
      lines.push({ kind: StatementLineKind.Matched, ...fields, detail: `payout ${payoutId}` });
    }
    const extra = debits
      .filter((record) => record !== kept && record.status === 'SUCCESS')
      .map((record) => ({ record, attempt: attemptOfMarker(payout, record.narration) ?? 1 }));
    if (extra.length > 0) doubles.push({ payout, extra });
  }

  for (const { refund, debits } of debitsByRefund.values()) {
    // The record we hold as the refund's: the oldest paid one (the list is newest first); another paid one is a
    // second debit of the same refund.
    const paid = debits.filter((record) => record.status === 'SUCCESS');
    const kept = paid.at(-1) ?? debits.at(-1);
    for (const record of debits) {
      const fields = { ...recordFields(record), refundId: refund.refundId };
      lines.push(
        record !== kept && record.status === 'SUCCESS'
          ? {
              kind: StatementLineKind.Duplicate,
              ...fields,
              detail: `a second debit of refund ${refund.refundId}: ${paid.length} debits carry provider refund ${refund.providerRefundId} (${paid.map((r) => r.id).join(', ')}); we hold ${kept?.id} as its debit`,
            }
          : {
              kind: StatementLineKind.Matched,
              ...fields,
              detail: `refund ${refund.refundId} (provider refund ${refund.providerRefundId})`,
            },
      );
    }
  }

  const explained = new Set(debitsByPayout.keys());
  const refundsExplained = new Set<string>();
  for (const line of lines) if (line.refundId) refundsExplained.add(line.refundId);
  for (const record of input.nearby) {
    const refund = isRefundRecord(record) ? input.refunds?.get(record.reference) : undefined;
    if (refund) refundsExplained.add(refund.refundId);
    const payoutId = payoutIdOfMarker(record.narration);
    if (payoutId && record.type === 'DEBIT') explained.add(payoutId);
  }
  for (const line of lines) if (line.payoutId && line.type === 'DEBIT') explained.add(line.payoutId);
  for (const payout of input.expected) {
    if (explained.has(payout.id)) continue;
    lines.push({
      kind: StatementLineKind.OursNotAtProvider,
      key: payout.id,
      payoutId: payout.id,
      amountKobo: payout.amountKobo,
      ...(payout.receipt?.chargesKobo !== undefined && { expectedChargesKobo: payout.receipt.chargesKobo }),
      ...(payout.receipt && { transactionId: payout.receipt.transactionId }),
      ...(payout.receipt?.paidAt && { createdAt: payout.receipt.paidAt }),
      status: payout.status,
      detail: `we record payout ${payout.id} as paid${payout.receipt ? ` by ${payout.receipt.transactionId}` : ''}, but the provider lists no debit with its marker`,
    });
  }
  for (const refund of input.expectedRefunds ?? []) {
    if (refundsExplained.has(refund.refundId)) continue;
    lines.push({
      kind: StatementLineKind.OursNotAtProvider,
      key: refund.refundId,
      refundId: refund.refundId,
      amountKobo: refund.amountKobo,
      createdAt: refund.acceptedAt,
      detail: `the provider accepted refund ${refund.refundId} of transaction ${refund.transactionId} as ${refund.providerRefundId}, but lists no debit of it`,
    });
  }
  return { lines, doubles };
}
