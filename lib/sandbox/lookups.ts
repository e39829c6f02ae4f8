/** Finding resources by id; an unknown id is 404, a wrong PIN 403. */
import { bankName } from './banks.js';
import { HttpError, notFound, unprocessable } from './errors.js';
import type { RouteContext } from './route.js';
import type { BankParty, ChildAccount, Wallet } from './state.js';

export function walletById(ctx: RouteContext, id: string, field: string): Wallet {
  const wallet = ctx.state.wallets.get(id);
  if (!wallet) throw notFound(`${field}: wallet ${id} not found`);
  return wallet;
}

export function childById(ctx: RouteContext, id: string): { child: ChildAccount; wallet: Wallet } {
  const child = ctx.state.childAccounts.get(id);
  if (!child) throw notFound(`childAccountId: child account ${id} not found`);
  return { child, wallet: walletById(ctx, child.walletId, 'childAccountId') };
}

export function checkPin(ctx: RouteContext, pin: string): void {
  if (pin !== ctx.pin) throw new HttpError(403, 'pin is incorrect');
}

/** A payout beneficiary; a well-formed but unknown bank code is 422. */
export function payoutBeneficiary(code: string, accountNumber: string, accountName: string): BankParty {
  const name = bankName(code);
  if (name === undefined) throw unprocessable(`bankCode ${code} is not a known bank`);
  return { bankCode: code, bankName: name, accountName, accountNumber };
}
