/** What the two bank payouts (POST /settlement/instant/payout, POST /child/bank) share: body and answer. */
import { formatNaira, toNaira } from '../../money.js';
import { SUCCESS } from '../contract.js';
import { ok, type Reply } from '../http.js';
import { type CommittedMove, partyFields } from '../operations.js';
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
  move: CommittedMove,
  transfer: BankTransferBody & {
    readonly chargesKobo: number;
    readonly from: Wallet;
    readonly beneficiary: BankParty;
  },
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
