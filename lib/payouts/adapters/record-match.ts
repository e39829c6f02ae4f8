import { MoneyError, toKobo } from '../../money.js';
import { endsWithMarker, type ProviderRecordSummary, payoutMarker } from '../gateway.js';
import type { Payout, PayoutInstruction } from '../model.js';

/**
 * The fields of a provider record (a `GET /transaction/wallet` item or a `GET /transaction/info` detail) by which
 * it is matched to a payout attempt. See lib/provider/CONTRACT.md, "Matching a record to a payout attempt".
 */
export interface MatchableRecord {
  readonly id: string;
  readonly type: string;
  readonly status: string;
  readonly category: string;
  readonly amount: number;
  readonly narration?: string;
  readonly createdAt: string;
  readonly beneficiaryBankCode: string;
  readonly beneficiaryAccountNumber: string;
  /** Echo of the request metadata, where the provider returns one (the interface shows none on these records). */
  readonly metadata?: unknown;
  readonly [field: string]: unknown;
}

/** The debit record's category each payout type produces (CONTRACT.md, "What the money-moving endpoints do"). */
const DEBIT_CATEGORY: Record<PayoutInstruction['type'], string> = {
  bank_transfer: 'BANK_TRANSFER',
  child_bank_transfer: 'BANK_TRANSFER',
  wallet_transfer: 'WALLET_TO_WALLET',
  wallet_credit: 'MERCHANT_DEBIT',
  wallet_debit: 'MERCHANT_DEBIT',
  child_debit: 'MERCHANT_DEBIT',
};

/**
 * How the destination of a wallet payout is confirmed. Wallet records name bank accounts, not wallet ids, so a
 * wallet named by the payout is confirmed by listing that wallet's records (`walletId` filter): the paired
 * CREDIT on the destination wallet, or the DEBIT itself on the wallet a debit takes from.
 */
export type WalletConfirmation = { readonly walletId: string; readonly type: 'CREDIT' | 'DEBIT' };

export function walletConfirmationOf(instruction: PayoutInstruction): WalletConfirmation | undefined {
  switch (instruction.type) {
    case 'wallet_transfer':
      return { walletId: instruction.destinationWalletId, type: 'CREDIT' };
    case 'wallet_credit':
      return { walletId: instruction.walletId, type: 'CREDIT' };
    case 'wallet_debit':
      return { walletId: instruction.walletId, type: 'DEBIT' };
    default:
      // Bank payouts name their destination on the record; a child debit goes to the main wallet, and records
      // do not name child accounts (CONTRACT.md).
      return undefined;
  }
}

/** The last word of a narration when it is one of this payout's markers; the attempt number it names. */
export function attemptOfMarker(payout: Payout, narration: string | undefined): number | undefined {
  const last = narration?.trim().split(/\s+/).at(-1);
  if (!last) return undefined;
  const prefix = payoutMarker(payout.id);
  if (last === prefix) return 1;
  const match = /^_(\d{1,3})$/.exec(last.slice(prefix.length));
  if (!last.startsWith(prefix) || !match?.[1]) return undefined;
  const attempt = Number(match[1]);
  return attempt >= 2 && payoutMarker(payout.id, attempt) === last ? attempt : undefined;
}

/** True when the record carries this attempt's marker as its narration's last word. */
export function carriesMarker(payout: Payout, attemptNumber: number, record: MatchableRecord): boolean {
  return endsWithMarker(record.narration, payoutMarker(payout.id, attemptNumber));
}

function amountKoboOf(record: MatchableRecord): number | undefined {
  try {
    return toKobo(record.amount);
  } catch (error) {
    if (error instanceof MoneyError) return undefined;
    throw error;
  }
}

/** A record as a person reads it in a review reason or a 409, with why it does not match when it does not. */
export function summarise(record: MatchableRecord, mismatch?: string): ProviderRecordSummary {
  const amountKobo = amountKoboOf(record);
  return {
    transactionId: record.id,
    ...(amountKobo !== undefined && { amountKobo }),
    destination: `${record.beneficiaryBankCode}/${record.beneficiaryAccountNumber}`,
    createdAt: record.createdAt,
    status: record.status,
    ...(mismatch && { mismatch }),
  };
}

/**
 * Everything that disagrees between a record carrying the payout's marker and the payout, as one sentence; empty
 * when it is the payout's debit. Status is not checked here: a matching record not yet `SUCCESS` is a separate
 * case (a person must look), not a foreign record.
 */
export function mismatchOf(payout: Payout, record: MatchableRecord): string {
  const problems: string[] = [];
  if (record.type !== 'DEBIT') problems.push(`type ${record.type}, not DEBIT`);
  const expectedCategory = DEBIT_CATEGORY[payout.instruction.type];
  if (record.category !== expectedCategory)
    problems.push(`category ${record.category}, not ${expectedCategory}`);
  const amountKobo = amountKoboOf(record);
  if (amountKobo !== payout.amountKobo)
    problems.push(`amount ${amountKobo ?? record.amount} kobo, not ${payout.amountKobo}`);
  const { instruction } = payout;
  if (instruction.type === 'bank_transfer' || instruction.type === 'child_bank_transfer') {
    const { bankCode, accountNumber } = instruction.beneficiary;
    if (record.beneficiaryBankCode !== bankCode || record.beneficiaryAccountNumber !== accountNumber) {
      problems.push(
        `destination ${record.beneficiaryBankCode}/${record.beneficiaryAccountNumber}, not ${bankCode}/${accountNumber}`,
      );
    }
  }
  const metadataPayoutId = payoutIdInMetadata(record.metadata);
  if (metadataPayoutId !== 'no metadata' && metadataPayoutId !== payout.id) {
    problems.push(`metadata.payoutId ${String(metadataPayoutId)}, not ${payout.id}`);
  }
  return problems.join('; ');
}

/** `metadata.payoutId` of a record that echoes metadata; 'no metadata' when the provider returned none. */
function payoutIdInMetadata(metadata: unknown): unknown {
  if (metadata === undefined || metadata === null) return 'no metadata';
  if (typeof metadata !== 'object') return undefined;
  return Object.entries(metadata).find(([key]) => key === 'payoutId')?.[1];
}

/**
 * True when `other`, a record listed on the wallet named by `confirmation`, confirms `debit` went there: the same
 * record for a DEBIT confirmation; for a CREDIT, the credit of the same operation (same reference where both
 * have one, same narration and amount).
 */
export function confirmsWallet(
  debit: MatchableRecord,
  other: MatchableRecord,
  confirmation: WalletConfirmation,
): boolean {
  if (other.type !== confirmation.type) return false;
  if (confirmation.type === 'DEBIT') return other.id === debit.id;
  const sameReference =
    typeof debit.reference !== 'string' ||
    typeof other.reference !== 'string' ||
    debit.reference === other.reference;
  return sameReference && other.narration === debit.narration && other.amount === debit.amount;
}

/** A list of candidates as a review reason names them: id, amount, destination, time, and what is wrong. */
export function describeCandidates(candidates: readonly ProviderRecordSummary[]): string {
  return candidates
    .map(
      (c) =>
        `${c.transactionId} (amount ${c.amountKobo ?? '?'} kobo, to ${c.destination}, at ${c.createdAt}, status ${c.status}` +
        `${c.mismatch ? `; ${c.mismatch}` : ''})`,
    )
    .join(', ');
}
