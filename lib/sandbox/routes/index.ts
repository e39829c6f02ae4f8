/** Every route of the provider interface (21). */
import type { Route } from '../route.js';
import { childAccountRoutes } from './child-accounts.js';
import { instantPayoutRoutes } from './instant-payout.js';
import { paymentLinkRoutes } from './payment-links.js';
import { payoutRoutes } from './payouts.js';
import { refundRoutes } from './refunds.js';
import { settlementRoutes } from './settlements.js';
import { storeRoutes } from './stores.js';
import { transactionRoutes } from './transactions.js';
import { virtualAccountRoutes } from './virtual-accounts.js';
import { walletRoutes } from './wallets.js';

export const providerRoutes: readonly Route[] = [
  ...paymentLinkRoutes,
  ...walletRoutes,
  ...instantPayoutRoutes,
  ...childAccountRoutes,
  ...storeRoutes,
  ...refundRoutes,
  ...settlementRoutes,
  ...transactionRoutes,
  ...payoutRoutes,
  ...virtualAccountRoutes,
];
