/**
 * Commits one money-moving operation: balances, wallet-transaction records and the ledger entry, all or nothing.
 * Callers validate the request first; the only failure left here is insufficient balance (422).
 */
import { formatNaira } from '../money.js';
import { TRANSACTION_TYPE, WALLET_CATEGORY, type WalletCategory } from './contract.js';
import { unprocessable } from './errors.js';
import { ID_GROUP } from './ids.js';
import type { RouteContext } from './route.js';
import type { BankParty, JsonObject, Wallet, WalletTransaction } from './state.js';
import { compactStamp } from './time.js';

export interface MoneyMove {
  readonly path: string;
  readonly from: Wallet;
  /** Destination wallet; absent for a transfer to a bank account outside. */
  readonly to?: Wallet;
  /** Destination bank account; defaults to `to`. */
  readonly beneficiary?: BankParty;
  readonly amountKobo: number;
  readonly chargesKobo: number;
  readonly vatKobo?: number;
  readonly debitCategory: WalletCategory;
  readonly creditCategory?: WalletCategory;
  /** The request's narration, or one made from the records' reference (a refund's names the refund). */
  readonly narration: string | ((reference: string) => string);
  readonly metadata: JsonObject;
  readonly description: string;
  readonly withSession: boolean;
  /**
   * The records' `reference` when the operation names its own (a refund's is the refund id), made only once the
   * money moved, so a refused operation allocates no id; a fresh reference by default.
   */
  readonly reference?: () => string;
}

export interface CommittedMove {
  readonly debit: WalletTransaction;
  readonly reference: string;
  readonly sessionId: string | null;
  readonly createdAt: Date;
}

export function commitMove(ctx: RouteContext, move: MoneyMove): CommittedMove {
  const { state } = ctx;
  const postings = [{ walletId: move.from.id, deltaKobo: -(move.amountKobo + move.chargesKobo) }];
  if (move.to) postings.push({ walletId: move.to.id, deltaKobo: move.amountKobo });
  const short = state.post(postings);
  if (short !== undefined) {
    throw unprocessable(
      `insufficient balance in wallet ${short}: ${formatNaira(move.amountKobo + move.chargesKobo)} needed, ` +
        `${formatNaira(move.from.balanceKobo)} available`,
    );
  }
  const createdAt = ctx.now();
  const reference = move.reference ? move.reference() : state.nextId(ID_GROUP.reference);
  const narration = typeof move.narration === 'function' ? move.narration(reference) : move.narration;
  const sessionId = move.withSession ? sessionIdFor(createdAt, state.nextSeq()) : null;
  const beneficiary = move.beneficiary ?? move.to;
  if (!beneficiary) throw new Error('a money move needs a destination');
  const common = {
    status: 'SUCCESS',
    reference,
    sessionId,
    description: move.description,
    narration,
    createdAt,
    originator: party(move.from),
    beneficiary: party(beneficiary),
  } as const;
  const debit: WalletTransaction = {
    ...common,
    seq: state.nextSeq(),
    id: state.nextId(ID_GROUP.walletTransaction),
    walletId: move.from.id,
    type: TRANSACTION_TYPE.debit,
    category: move.debitCategory,
    amountKobo: move.amountKobo,
    chargesKobo: move.chargesKobo,
    vatKobo: move.vatKobo ?? 0,
    // The bank payouts (instant payout, child bank) are read through GET /payout/details; a refund is no payout.
    isPayout: move.debitCategory === WALLET_CATEGORY.bankTransfer,
  };
  state.walletTransactions.push(debit);
  if (move.to) {
    state.walletTransactions.push({
      ...common,
      seq: state.nextSeq(),
      id: state.nextId(ID_GROUP.walletTransaction),
      walletId: move.to.id,
      type: TRANSACTION_TYPE.credit,
      category: move.creditCategory ?? move.debitCategory,
      amountKobo: move.amountKobo,
      chargesKobo: 0,
      vatKobo: 0,
      isPayout: false,
    });
  }
  state.operations.push({
    transactionId: debit.id,
    path: move.path,
    amountKobo: move.amountKobo,
    chargesKobo: move.chargesKobo,
    narration,
    metadata: move.metadata,
    createdAt,
  });
  return { debit, reference, sessionId, createdAt };
}

function party(p: BankParty): BankParty {
  return {
    bankCode: p.bankCode,
    bankName: p.bankName,
    accountName: p.accountName,
    accountNumber: p.accountNumber,
  };
}

/** NIBSS-style 30-digit session id: institution code, UTC stamp, sequence. */
function sessionIdFor(at: Date, seq: number): string {
  return `100004${compactStamp(at)}${String(seq).padStart(12, '0')}`;
}

/** The eight originator/beneficiary fields; bank payouts omit the originator bank code and name. */
export function partyFields(
  originator: BankParty,
  beneficiary: BankParty,
  options: { originatorBank: boolean } = { originatorBank: true },
): Record<string, string> {
  return {
    ...(options.originatorBank
      ? { originatorBankCode: originator.bankCode, originatorBankName: originator.bankName }
      : {}),
    originatorAccountName: originator.accountName,
    originatorAccountNumber: originator.accountNumber,
    beneficiaryBankCode: beneficiary.bankCode,
    beneficiaryBankName: beneficiary.bankName,
    beneficiaryAccountName: beneficiary.accountName,
    beneficiaryAccountNumber: beneficiary.accountNumber,
  };
}
