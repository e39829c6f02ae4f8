/** POST /settlement/instant/payout: pays out of the main merchant wallet to a bank account, plus fee and VAT. */
import { formatNaira } from '../../money.js';
import { PROVIDER_PATHS, SETTLEMENT_CATEGORY, SETTLEMENT_STATUS } from '../contract.js';
import type { Reply, SandboxRequest } from '../http.js';
import { ID_GROUP } from '../ids.js';
import type { Route, RouteContext } from '../route.js';
import { objectBody } from '../validate.js';
import { bankTransferReply, commitBankTransfer, parseBankTransferBody } from './bank-transfer.js';

function instantPayout(req: SandboxRequest, ctx: RouteContext): Reply {
  const transfer = parseBankTransferBody(objectBody(req.body));
  const payout = commitBankTransfer(ctx, {
    path: PROVIDER_PATHS.instantPayout,
    from: ctx.state.mainWallet(),
    transfer,
    otherChargesKobo: 0,
    description: (beneficiary) =>
      `Instant settlement of ${formatNaira(transfer.amountKobo)} to ${transfer.accountName} ${transfer.accountNumber} ${beneficiary.bankName}`,
  });
  const settlementId = ctx.state.nextId(ID_GROUP.settlement);
  ctx.state.settlements.push({
    seq: ctx.state.nextSeq(),
    id: settlementId,
    amountKobo: transfer.amountKobo,
    chargesKobo: payout.transfer.chargesKobo,
    status: SETTLEMENT_STATUS.successful,
    category: SETTLEMENT_CATEGORY.instant,
    createdAt: payout.move.createdAt,
  });
  return bankTransferReply(payout, {
    customerMetadata: {
      ...transfer.metadata,
      isInstantSettlement: true,
      isMerchantSettlement: true,
      settlementId,
    },
  });
}

export const instantPayoutRoutes: readonly Route[] = [
  { method: 'POST', path: PROVIDER_PATHS.instantPayout, handler: instantPayout },
];
