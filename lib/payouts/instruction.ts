/**
 * A payout as the money instruction the gate judges (lib/controls/gate.ts `MoneyInstruction`): which account it
 * debits, its amount and who set it, and who releases it. Every entry point that makes or releases a payout (the
 * API, an approval, a recurring rule and its occurrences, an event, a settlement) describes it here; the gate
 * alone derives the cap counter and whether a second person is needed.
 */

import type { Principal } from '../controls/index.js';
import { type DebitedAccount, MoneyEntryPoint, type MoneyInstruction } from '../controls/index.js';
import type { Payout, PayoutInstruction, PayoutOrigin } from './model.js';
import type { CreatePayoutRequest } from './schemas.js';

/** The gate's entry point for a payout created with this origin; its approval passes the gate there again. */
export const ENTRY_POINT_OF: Readonly<Record<PayoutOrigin, MoneyEntryPoint>> = {
  api: MoneyEntryPoint.ApiPayout,
  event: MoneyEntryPoint.EventPayout,
  schedule: MoneyEntryPoint.RecurringOccurrence,
  settlement: MoneyEntryPoint.Settlement,
  run: MoneyEntryPoint.PayoutRun,
};

export function toInstruction(request: CreatePayoutRequest): PayoutInstruction {
  switch (request.type) {
    case 'bank_transfer':
      return { type: request.type, beneficiary: request.beneficiary };
    case 'wallet_transfer':
      return {
        type: request.type,
        sourceWalletId: request.sourceWalletId,
        destinationWalletId: request.destinationWalletId,
      };
    case 'wallet_credit':
    case 'wallet_debit':
      return { type: request.type, walletId: request.walletId };
    case 'child_debit':
      return { type: request.type, childAccountId: request.childAccountId };
    case 'child_bank_transfer':
      return { type: request.type, childAccountId: request.childAccountId, beneficiary: request.beneficiary };
  }
}

/**
 * The account a payout debits, as the gate weighs it (`judge` derives the cap counter from it): a bank transfer
 * and a wallet credit leave the main wallet; a wallet transfer or debit leaves the wallet it names (which may be
 * the main wallet: the gate knows its id); a child account's transfers leave that child account.
 */
export function debitedAccountOf(instruction: PayoutInstruction): DebitedAccount {
  switch (instruction.type) {
    case 'bank_transfer':
    case 'wallet_credit':
      return { kind: 'main_wallet' };
    case 'wallet_transfer':
      return { kind: 'wallet', walletId: instruction.sourceWalletId };
    case 'wallet_debit':
      return { kind: 'wallet', walletId: instruction.walletId };
    case 'child_debit':
    case 'child_bank_transfer':
      return { kind: 'child_account', childAccountId: instruction.childAccountId };
  }
}

/**
 * A payout as the money instruction the gate judges: the account it debits and its amount, set by its request,
 * released by `releasedBy` (its requester, or the person approving it).
 */
export function describePayout(
  payout: Pick<Payout, 'instruction' | 'amountKobo' | 'origin'>,
  releasedBy: Principal,
  amountPath = 'amount',
  entryPoint: MoneyEntryPoint = ENTRY_POINT_OF[payout.origin],
): MoneyInstruction {
  return {
    entryPoint,
    debits: debitedAccountOf(payout.instruction),
    amount: { kobo: payout.amountKobo, source: { from: 'request' }, path: amountPath },
    releasedBy,
  };
}

/**
 * A payout request (a recurring rule's template) as the instruction the gate judges, at `entryPoint`: its amount,
 * set by the request, debiting the account its type names.
 */
export function describePayoutRequest(
  request: CreatePayoutRequest,
  entryPoint: MoneyEntryPoint,
  releasedBy: Principal,
): MoneyInstruction {
  return describePayout(
    { instruction: toInstruction(request), amountKobo: request.amount, origin: 'api' },
    releasedBy,
    'amount',
    entryPoint,
  );
}
