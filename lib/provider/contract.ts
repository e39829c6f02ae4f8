/**
 * The client's constants of CONTRACT.md (the sandbox keeps its own copy in lib/sandbox/contract.ts; the two
 * share no code, so the contract tests check one against the other).
 */

/** The 21 endpoints, relative to the base URL. */
export const PROVIDER_PATHS = {
  paymentLinkTransactions: '/payment-link/transactions',
  paymentLinks: '/payment-link',
  paymentStatus: '/payment-link/payment/status',
  walletTransfer: '/wallet/transfer',
  walletCredit: '/wallet/credit',
  walletDebit: '/wallet/enable',
  childDebit: '/child/debit',
  childBank: '/child/bank',
  settlements: '/settlement',
  instantPayout: '/settlement/instant/payout',
  walletTransactions: '/transaction/wallet',
  transactionInfo: '/transaction/info',
  payoutDetails: '/payout/details',
  scheduledPayouts: '/payout/single/schedule',
  recurrentPayouts: '/payout/single/recurrent',
  bulkPayoutItem: '/payout/bulk/item',
  stores: '/branch/store',
  storeInfo: '/branch/store/info',
  terminalUsage: '/branch/terminal/usage',
  refunds: '/refund',
  virtualAccounts: '/virtual-accounts',
} as const;
export type ProviderPath = (typeof PROVIDER_PATHS)[keyof typeof PROVIDER_PATHS];

/** Page size bounds of every list (CONTRACT.md, Pagination). */
export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/**
 * A refund's wallet record (CONTRACT.md, "A refund's wallet record"): the main wallet's `DEBIT` of this category,
 * whose `reference` is the provider's refund id (`POST /refund`'s `data.id`).
 */
export const REFUND_RECORD_CATEGORY = 'REFUND';
