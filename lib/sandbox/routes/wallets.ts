/** POST /wallet/transfer, /wallet/credit, /wallet/enable: moves between wallets of the merchant (free by default). */
import { formatNaira, toNaira } from '../../money.js';
import { MESSAGES, PROVIDER_PATHS, SUCCESS, WALLET_CATEGORY } from '../contract.js';
import { unprocessable } from '../errors.js';
import { ok, type Reply } from '../http.js';
import { checkPin, walletById } from '../lookups.js';
import { type CommittedMove, commitMove, partyFields } from '../operations.js';
import type { Route, RouteContext } from '../route.js';
import type { JsonObject, Wallet } from '../state.js';
import { isoLagos } from '../time.js';
import { integerAmount, metadata, narration, objectBody, requiredString } from '../validate.js';

interface WalletBody {
  readonly amountKobo: number;
  readonly narration: string;
  readonly metadata: JsonObject;
}

/** Validates the common fields, then the PIN (400 before 403). */
function walletBody(
  ctx: RouteContext,
  body: JsonObject,
  idFields: readonly string[],
): WalletBody & { ids: string[] } {
  const amountKobo = integerAmount(body.amount);
  const pin = requiredString(body, 'pin');
  const text = narration(body);
  const meta = metadata(body);
  const ids = idFields.map((field) => requiredString(body, field));
  checkPin(ctx, pin);
  return { amountKobo, narration: text, metadata: meta, ids };
}

function result(move: CommittedMove, input: WalletBody, chargesKobo: number, from: Wallet, to: Wallet) {
  return {
    paidAt: isoLagos(move.createdAt),
    reference: move.reference,
    transactionId: move.debit.id,
    status: SUCCESS,
    amount: toNaira(input.amountKobo),
    charges: toNaira(chargesKobo),
    totalAmount: toNaira(input.amountKobo + chargesKobo),
    description: move.debit.description,
    narration: input.narration,
    ...partyFields(from, to),
  };
}

function transfer(req: Parameters<Route['handler']>[0], ctx: RouteContext): Reply {
  const input = walletBody(ctx, objectBody(req.body), ['fromWalletId', 'toWalletId']);
  const [fromId = '', toId = ''] = input.ids;
  const from = walletById(ctx, fromId, 'fromWalletId');
  const to = walletById(ctx, toId, 'toWalletId');
  if (from.id === to.id) throw unprocessable('fromWalletId and toWalletId must be different wallets');
  const chargesKobo = ctx.fees.walletTransferKobo;
  const move = commitMove(ctx, {
    path: PROVIDER_PATHS.walletTransfer,
    from,
    to,
    ...input,
    chargesKobo,
    debitCategory: WALLET_CATEGORY.walletToWallet,
    description: `Wallet transfer of ${formatNaira(input.amountKobo)} from wallet ${from.id} to wallet ${to.id}`,
    withSession: false,
  });
  return ok(
    {
      ...result(move, input, chargesKobo, from, to),
      merchantId: ctx.state.merchant.id,
      walletId: from.id,
      fromWalletId: from.id,
      toWalletId: to.id,
      providerWalletId: from.accountNumber,
      category: WALLET_CATEGORY.walletToWallet,
      customerMetadata: input.metadata,
    },
    MESSAGES.walletTransfer,
  );
}

/** Credit moves money from the main wallet to `walletId`; debit ("enable") the other way round. */
function mainWalletMove(direction: 'credit' | 'debit') {
  return (req: Parameters<Route['handler']>[0], ctx: RouteContext): Reply => {
    const input = walletBody(ctx, objectBody(req.body), ['walletId']);
    const wallet = walletById(ctx, input.ids[0] ?? '', 'walletId');
    const main = ctx.state.mainWallet();
    if (wallet.id === main.id) throw unprocessable('walletId must not be the main merchant wallet');
    const [from, to] = direction === 'credit' ? [main, wallet] : [wallet, main];
    const chargesKobo = direction === 'credit' ? ctx.fees.walletCreditKobo : ctx.fees.walletDebitKobo;
    const move = commitMove(ctx, {
      path: direction === 'credit' ? PROVIDER_PATHS.walletCredit : PROVIDER_PATHS.walletDebit,
      from,
      to,
      ...input,
      chargesKobo,
      debitCategory: WALLET_CATEGORY.merchantDebit,
      creditCategory: WALLET_CATEGORY.merchantCredit,
      description:
        direction === 'credit'
          ? `Wallet ${wallet.id} credited with ${formatNaira(input.amountKobo)}`
          : `Wallet ${wallet.id} debited with ${formatNaira(input.amountKobo)}`,
      withSession: false,
    });
    const data = {
      ...result(move, input, chargesKobo, from, to),
      merchantId: ctx.state.merchant.id,
      walletId: wallet.id,
      ...(direction === 'credit'
        ? { requestMetadata: input.metadata }
        : { customerMetadata: input.metadata }),
    };
    return ok(data, direction === 'credit' ? MESSAGES.walletCredit : MESSAGES.walletDebit);
  };
}

export const walletRoutes: readonly Route[] = [
  { method: 'POST', path: PROVIDER_PATHS.walletTransfer, handler: transfer },
  { method: 'POST', path: PROVIDER_PATHS.walletCredit, handler: mainWalletMove('credit') },
  { method: 'POST', path: PROVIDER_PATHS.walletDebit, handler: mainWalletMove('debit') },
];
