/**
 * Typed client of the payments provider. See CONTRACT.md for every decision the interface leaves open.
 *
 * @example
 * import { ProviderClient, StaticCredentialsSource, ProviderOutcomeUnknownError } from './lib/provider/index.js';
 * const client = new ProviderClient({ baseUrl, credentials: new StaticCredentialsSource({ token, pin }) });
 * try {
 *   await client.settlements.instantPayout({ amount: 294.9, bankCode: '058', accountNumber: '0123456789', accountName: 'Ada', narration: 'p-1' });
 * } catch (error) {
 *   if (error instanceof ProviderOutcomeUnknownError) { /* reconcile by narration, never retry blindly *\/ }
 * }
 */
export { ProviderClient } from './client.js';
export {
  type ClientRetryOptions,
  type ClientTimeouts,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type ProviderClientOptions,
  ProviderConnection,
} from './connection.js';
export {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  PROVIDER_PATHS,
  type ProviderPath,
  REFUND_RECORD_CATEGORY,
} from './contract.js';
export {
  type Credentials,
  CredentialsError,
  type CredentialsSource,
  EnvCredentialsSource,
  StaticCredentialsSource,
} from './credentials.js';
export * from './errors.js';
export { DEFAULT_TIMEOUTS, HttpTransport, type TransportTimeouts } from './http-transport.js';
export { PacedTransport, type RequestPacer } from './paced-transport.js';
export { autoPage, normalizePagination } from './pagination.js';
export * from './resources/bulk-payouts.js';
export * from './resources/child-accounts.js';
export * from './resources/payment-links.js';
export * from './resources/payouts.js';
export * from './resources/refunds.js';
export * from './resources/settlements.js';
export * from './resources/stores.js';
export * from './resources/transactions.js';
export * from './resources/virtual-accounts.js';
export * from './resources/wallets.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export type { BulkPayoutItemRecord } from './schemas/bulk-payout.js';
export type { PaymentLink, PaymentLinkTransaction, PaymentStatus } from './schemas/payment-link.js';
export type { PayoutDetail, RecurrentPayout, ScheduledPayout } from './schemas/payout.js';
export type { Refund } from './schemas/refund.js';
export { type Settlement, SettlementCategory, settlementSchema } from './schemas/settlement.js';
export type { Store, StoreDetail, TerminalUsage } from './schemas/store.js';
export { storeSchema } from './schemas/store.js';
export type { TransactionDetail, WalletTransaction } from './schemas/transaction.js';
export { walletTransactionSchema } from './schemas/transaction.js';
export type { VirtualAccount } from './schemas/virtual-account.js';
export type {
  ChildBankTransferResult,
  ChildDebitResult,
  InstantPayoutResult,
  WalletCreditResult,
  WalletDebitResult,
  WalletTransferResult,
} from './schemas/wallet-operation.js';
export {
  createSecretsManagerClient,
  type SecretsManagerCredentialsOptions,
  SecretsManagerCredentialsSource,
  type SecretsManagerLike,
} from './secrets-manager-credentials.js';
export type { Transport, TransportRequest, TransportResponse } from './transport.js';
export { TransportError } from './transport.js';
export type * from './types.js';
