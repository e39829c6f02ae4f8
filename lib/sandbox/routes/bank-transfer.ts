/** What the two bank payouts (POST /settlement/instant/payout, POST /child/bank) share: body, commit and answer. */
import { formatNaira, toNaira } from '../../money.js';
import { SUCCESS, WALLET_CATEGORY } from '../contract.js';
import { bankTransferCharges } from '../fees.js';
import { ok, type Reply } from '../http.js';
import { payoutBeneficiary } from '../lookups.js';
import { type CommittedMove, commitMove, partyFields } from '../operations.js';
import type { RouteContext } from '../route.js';
import type { BankParty, JsonObject, Wallet } from '../state.js';
import { isoLagos } from '../time.js';
import { accountName, accountNumber, bankCode, decimalAmount, metadata, narration } from '../validate.js';

export interface BankTransferBody {
  readonly amountKobo: number;
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
  readonly narration: string;
  readonly metadata: JsonObject;
}

/** The bank-transfer fields of a body; each malformed one is a 400 naming it. */
export function parseBankTransferBody(body: JsonObject): BankTransferBody {
  return {
    amountKobo: decimalAmount(body.amount),
    bankCode: bankCode(body),
    accountNumber: accountNumber(body),
    accountName: accountName(body),
    narration: narration(body),
    metadata: metadata(body),
  };
}

/** A committed bank payout: its move, and the transfer as paid (charges, source wallet, beneficiary). */
export interface CommittedBankTransfer {
  readonly move: CommittedMove;
  readonly transfer: BankTransferBody & {
    readonly chargesKobo: number;
    readonly from: Wallet;
    readonly beneficiary: BankParty;
  };
  /** The tiered interbank fee plus its VAT, part of `chargesKobo`. */
  readonly bankTransferKobo: number;
}

/**
 * Pays `transfer` out of `from` to the bank account it names: the beneficiary looked up (422 on an unknown bank
 * code), charged the interbank fee and VAT plus `otherChargesKobo`, one `BANK_TRANSFER` debit with a session id.
 */
export function commitBankTransfer(
  ctx: RouteContext,
  payout: {
    readonly path: string;
    readonly from: Wallet;
    readonly transfer: BankTransferBody;
    readonly otherChargesKobo: number;
    readonly description: (beneficiary: BankParty) => string;
  },
): CommittedBankTransfer {
  const { transfer, from } = payout;
  const beneficiary = payoutBeneficiary(transfer.bankCode, transfer.accountNumber, transfer.accountName);
  const { feeKobo, vatKobo } = bankTransferCharges(transfer.amountKobo, ctx.fees);
  const bankTransferKobo = feeKobo + vatKobo;
  const chargesKobo = payout.otherChargesKobo + bankTransferKobo;
  const move = commitMove(ctx, {
    path: payout.path,
    from,
    beneficiary,
    amountKobo: transfer.amountKobo,
    chargesKobo,
    vatKobo,
    debitCategory: WALLET_CATEGORY.bankTransfer,
    narration: transfer.narration,
    metadata: transfer.metadata,
    description: payout.description(beneficiary),
    withSession: true,
  });
  return { move, transfer: { ...transfer, chargesKobo, from, beneficiary }, bankTransferKobo };
}

/** The message the interface describes: amount, beneficiary name, account number, bank name, session id. */
export function transferMessage(
  amountKobo: number,
  name: string,
  number: string,
  bank: string,
  session: string,
) {
  return `Transfer of ${formatNaira(amountKobo)} to ${name} (${number}, ${bank}) was successful. Session ID: ${session}`;
}

/**
 * The answer of a committed bank payout: the fields both endpoints return (no originator bank code or name, as
 * the interface shows), plus the endpoint's own `extra` fields.
 */
export function bankTransferReply(
  { move, transfer }: CommittedBankTransfer,
  extra: Record<string, unknown>,
): Reply {
  const sessionId = move.sessionId ?? '';
  return ok(
    {
      paidAt: isoLagos(move.createdAt),
      reference: move.reference,
      transactionId: move.debit.id,
      status: SUCCESS,
      amount: toNaira(transfer.amountKobo),
      charges: toNaira(transfer.chargesKobo),
      totalAmount: toNaira(transfer.amountKobo + transfer.chargesKobo),
      description: move.debit.description,
      narration: transfer.narration,
      ...extra,
      originatorWalletId: transfer.from.id,
      sessionId,
      ...partyFields(transfer.from, transfer.beneficiary, { originatorBank: false }),
    },
    transferMessage(
      transfer.amountKobo,
      transfer.accountName,
      transfer.accountNumber,
      transfer.beneficiary.bankName,
      sessionId,
    ),
  );
}
