import * as z from 'zod/mini';

// Each schema is built on first use (z.lazy): every function loads all the provider's resources but parses few of
// them, and building them at load was a large part of a cold start's zod work (docs/cold-start.md).
import { amount, metadata, timestamp } from './common.js';

/** Fields every wallet operation result has (instant payout and child bank omit originator bank code/name). */
const base = () => ({
  paidAt: timestamp,
  transactionId: z.string(),
  status: z.string(),
  amount,
  charges: amount,
  totalAmount: amount,
  description: z.string(),
  narration: z.string(),
  beneficiaryBankCode: z.string(),
  beneficiaryBankName: z.string(),
  beneficiaryAccountName: z.string(),
  beneficiaryAccountNumber: z.string(),
  originatorAccountName: z.string(),
  originatorAccountNumber: z.string(),
});
/** What the four wallet operations (transfer, credit, debit, child debit) say besides `base`. */
const walletMovement = () => ({
  ...base(),
  originatorBankCode: z.string(),
  originatorBankName: z.string(),
  merchantId: z.string(),
  walletId: z.string(),
});
/** What the two bank payouts (child bank transfer, instant payout) say besides `base`. */
const bankPayout = () => ({
  ...base(),
  reference: z.string(),
  originatorWalletId: z.string(),
  sessionId: z.string(),
});

/** `data` of POST /wallet/transfer. */
export const walletTransferResultSchema = z.lazy(() =>
  z.looseObject({
    ...walletMovement(),
    reference: z.string(),
    fromWalletId: z.string(),
    toWalletId: z.string(),
    providerWalletId: z.string(),
    category: z.string(),
    customerMetadata: metadata,
  }),
);
export type WalletTransferResult = z.infer<typeof walletTransferResultSchema>;

/** `data` of POST /wallet/credit (echoes the request metadata as `requestMetadata`). */
export const walletCreditResultSchema = z.lazy(() =>
  z.looseObject({
    ...walletMovement(),
    reference: z.string(),
    requestMetadata: metadata,
  }),
);
export type WalletCreditResult = z.infer<typeof walletCreditResultSchema>;

/** `data` of POST /wallet/enable (a wallet debit). */
export const walletDebitResultSchema = z.lazy(() =>
  z.looseObject({
    ...walletMovement(),
    reference: z.string(),
    customerMetadata: metadata,
  }),
);
export type WalletDebitResult = z.infer<typeof walletDebitResultSchema>;

/** `data` of POST /child/debit. */
export const childDebitResultSchema = z.lazy(() =>
  z.looseObject({
    ...walletMovement(),
    transactionReference: z.string(),
    customerMetadata: metadata,
    mode: z.string(),
    childAccountId: z.string(),
    childAccountName: z.string(),
    childAccountNumber: z.string(),
  }),
);
export type ChildDebitResult = z.infer<typeof childDebitResultSchema>;

/** `data` of POST /child/bank. */
export const childBankTransferResultSchema = z.lazy(() =>
  z.looseObject({
    ...bankPayout(),
    debitCharges: amount,
    bankTransferCharges: amount,
    totalCharges: amount,
  }),
);
export type ChildBankTransferResult = z.infer<typeof childBankTransferResultSchema>;

/** `data` of POST /settlement/instant/payout. */
export const instantPayoutResultSchema = z.lazy(() =>
  z.looseObject({
    ...bankPayout(),
    // An echo of the request metadata: settlement payouts carry these three keys, other bank payouts need not.
    customerMetadata: z.looseObject({
      isInstantSettlement: z.optional(z.boolean()),
      isMerchantSettlement: z.optional(z.boolean()),
      settlementId: z.optional(z.string()),
    }),
  }),
);
export type InstantPayoutResult = z.infer<typeof instantPayoutResultSchema>;
