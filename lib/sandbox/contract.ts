/**
 * Constants of the provider interface as the sandbox implements it.
 * Source: the interface spec and `lib/provider/CONTRACT.md` (binding). Deliberately not shared with
 * `lib/provider/contract.ts`, so that client tests against the sandbox check both sides against the text.
 */

/** The 21 paths of the provider interface. */
export const PROVIDER_PATHS = {
  paymentLinkTransactions: '/payment-link/transactions',
  paymentLinks: '/payment-link',
  paymentLinkPaymentStatus: '/payment-link/payment/status',
  walletTransfer: '/wallet/transfer',
  walletCredit: '/wallet/credit',
  walletDebit: '/wallet/enable',
  instantPayout: '/settlement/instant/payout',
  childDebit: '/child/debit',
  childBank: '/child/bank',
  terminalUsage: '/branch/terminal/usage',
  stores: '/branch/store',
  storeInfo: '/branch/store/info',
  refund: '/refund',
  settlements: '/settlement',
  walletTransactions: '/transaction/wallet',
  transactionInfo: '/transaction/info',
  payoutDetails: '/payout/details',
  recurrentPayouts: '/payout/single/recurrent',
  scheduledPayouts: '/payout/single/schedule',
  virtualAccounts: '/virtual-accounts',
  bulkPayoutItem: '/payout/bulk/item',
} as const;
export type ProviderPath = (typeof PROVIDER_PATHS)[keyof typeof PROVIDER_PATHS];

/** Prefix of the sandbox-only admin paths (no auth, not part of the provider interface). */
export const ADMIN_PREFIX = '/__sandbox/';

/** Success messages the interface spells out (typos included). */
export const MESSAGES = {
  walletTransfer: 'Wallet transfer successfully completed.',
  walletDebit: 'Wallet successfully debitted.',
  walletCredit: 'Wallet successfully credited.',
  childDebit: 'Account successful debited',
} as const;

export const PAGINATION = { defaultPage: 1, defaultPerPage: 20, maxPerPage: 100 } as const;

export const TRANSACTION_TYPE = { debit: 'DEBIT', credit: 'CREDIT' } as const;
export type TransactionType = (typeof TRANSACTION_TYPE)[keyof typeof TRANSACTION_TYPE];

export const WALLET_CATEGORY = {
  bankTransfer: 'BANK_TRANSFER',
  merchantDebit: 'MERCHANT_DEBIT',
  merchantCredit: 'MERCHANT_CREDIT',
  bankFunding: 'BANK_FUNDING',
  walletToWallet: 'WALLET_TO_WALLET',
  /** The main wallet's debit of an accepted POST /refund (CONTRACT.md, "A refund's wallet record"). */
  refund: 'REFUND',
} as const;
export type WalletCategory = (typeof WALLET_CATEGORY)[keyof typeof WALLET_CATEGORY];

export const SETTLEMENT_STATUS = { successful: 'SUCCESSFUL', failed: 'FAILED' } as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUS)[keyof typeof SETTLEMENT_STATUS];

export const SETTLEMENT_CATEGORY = {
  merchant: 'MERCHANT_SETTLEMENT',
  subaccount: 'SUBACCOUNT_SETTLEMENT',
  instant: 'INSTANT_SETTLEMENT',
  card: 'CARD_SETTLEMENT',
} as const;
export type SettlementCategory = (typeof SETTLEMENT_CATEGORY)[keyof typeof SETTLEMENT_CATEGORY];

export const SCHEDULED_STATUS = { dispatched: 'DISPATCHED', cancelled: 'CANCELLED' } as const;
export type ScheduledStatus = (typeof SCHEDULED_STATUS)[keyof typeof SCHEDULED_STATUS];

export const SUCCESS = 'SUCCESS';
export const SANDBOX_MODE = 'SANDBOX';

/** Limits CONTRACT.md fixes where the interface is silent. */
export const LIMITS = {
  narrationMaxLength: 100,
  metadataMaxKeys: 20,
  noteMaxLength: 500,
  accountNamePattern: /^.{1,100}$/s,
  accountNumberPattern: /^\d{10}$/,
  bankCodePattern: /^\d{3,6}$/,
} as const;

/** `Retry-After` seconds on an injected 429. */
export const RETRY_AFTER_SECONDS = 1;
