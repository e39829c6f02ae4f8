import * as z from 'zod/mini';

// Each schema is built on first use (z.lazy): every function loads all the provider's resources but parses few of
// them, and building them at load was a large part of a cold start's zod work (docs/cold-start.md).
import { amount, bankParties, merchantRef, timestamp } from './common.js';
import { listData, sizePagination } from './pagination.js';

/** Item of `data.links` in GET /payment-link. */
export const paymentLinkSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    link: z.string(),
    amount,
    hasPaid: z.boolean(),
    bearer: z.string(),
    name: z.string(),
    status: z.string(),
    createdAt: timestamp,
  }),
);
export type PaymentLink = z.infer<typeof paymentLinkSchema>;

const rawPaymentLinkTransaction = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    bearer: z.string(),
    status: z.nullable(z.string()),
    amount,
    charges: amount,
    category: z.string(),
    reference: z.string(),
    amountPaid: amount,
    subaccountId: z.nullable(z.string()),
    // Both capitalisations occur: `subAccount…` on bank payments, `subaccount…` on card payments.
    subAccountShare: z.optional(amount),
    subaccountShare: z.optional(amount),
    subAccountSettlement: z.optional(amount),
    subaccountSettlement: z.optional(amount),
    instantSettlement: z.boolean(),
    mainAccountShare: amount,
    mainAccountSettlement: amount,
    totalSettlementAmount: amount,
    paymentMethod: z.nullable(z.string()),
    createdAt: timestamp,
    paidAt: timestamp,
    merchant: merchantRef,
    // Card payments.
    rrn: z.optional(z.string()),
    last4: z.optional(z.string()),
    scheme: z.optional(z.string()),
    currency: z.optional(z.string()),
    cardNumber: z.optional(z.string()),
    terminalId: z.optional(z.string()),
    hasActiveSubaccount: z.optional(z.boolean()),
    // Bank payments; `fields.customerEmail`, or top-level `email` in the older shape.
    fields: z.optional(z.looseObject({ customerEmail: z.optional(z.string()) })),
    email: z.optional(z.string()),
    walletId: z.optional(z.string()),
    narration: z.optional(z.string()),
    sessionId: z.optional(z.string()),
    isPaymentLink: z.optional(z.boolean()),
    paymentLinkId: z.optional(z.string()),
    settledAmount: z.optional(amount),
    paymentReference: z.optional(z.string()),
    customerReference: z.optional(z.string()),
    originatorBankCode: z.optional(z.string()),
    originatorBankName: z.optional(z.string()),
    originatorAccountName: z.optional(z.string()),
    originatorAccountNumber: z.optional(z.string()),
    beneficiaryBankCode: z.optional(z.string()),
    beneficiaryBankName: z.optional(z.string()),
    beneficiaryAccountName: z.optional(z.string()),
    beneficiaryAccountNumber: z.optional(z.string()),
    originatorBankVerificationNumber: z.optional(z.string()),
    beneficiaryBankVerificationNumber: z.optional(z.string()),
  }),
);

/**
 * Item of `data.transactions` in GET /payment-link/transactions. Keeps every wire field and adds
 * normalised `shares` (whichever capitalisation the wire used), `customerEmail` (new or old shape) and
 * `kind` (`card` when card fields are present, `bank` when bank fields are, else `unknown`).
 */
export const paymentLinkTransactionSchema = z.lazy(() =>
  z.pipe(
    rawPaymentLinkTransaction.check(
      z.refine((tx) => (tx.subAccountShare ?? tx.subaccountShare) !== undefined, {
        message: 'expected number in subAccountShare or subaccountShare',
        path: ['subAccountShare'],
      }),
      z.refine((tx) => (tx.subAccountSettlement ?? tx.subaccountSettlement) !== undefined, {
        message: 'expected number in subAccountSettlement or subaccountSettlement',
        path: ['subAccountSettlement'],
      }),
    ),
    z.transform((tx) => ({
      ...tx,
      kind: paymentKindOf(tx),
      customerEmail: tx.fields?.customerEmail ?? tx.email,
      shares: {
        subAccountShare: tx.subAccountShare ?? tx.subaccountShare ?? 0,
        subAccountSettlement: tx.subAccountSettlement ?? tx.subaccountSettlement ?? 0,
      },
    })),
  ),
);
export type PaymentLinkTransaction = z.infer<typeof paymentLinkTransactionSchema>;

function paymentKindOf(tx: z.infer<typeof rawPaymentLinkTransaction>): 'card' | 'bank' | 'unknown' {
  if (tx.rrn !== undefined || tx.last4 !== undefined || tx.scheme !== undefined) return 'card';
  if (tx.sessionId !== undefined || tx.fields !== undefined || tx.email !== undefined) return 'bank';
  return 'unknown';
}

export const paymentLinkListData = listData(sizePagination, 'links', paymentLinkSchema);
export const paymentLinkTransactionListData = listData(
  sizePagination,
  'transactions',
  paymentLinkTransactionSchema,
);

/** `data.metadata` of GET /payment-link/payment/status. */
const paymentStatusMetadata = z.lazy(() =>
  z.looseObject({
    narration: z.string(),
    reference: z.string(),
    amountPaid: amount,
    isPaymentLink: z.boolean(),
    paymentLinkId: z.string(),
    paymentMethod: z.string(),
    subaccountShare: amount,
    mainAccountShare: amount,
    hasActiveSubaccount: z.boolean(),
    subaccountSettlement: amount,
    mainAccountSettlement: amount,
    totalSettlementAmount: amount,
    ...bankParties(),
    originatorBankVerificationNumber: z.string(),
    beneficiaryBankVerificationNumber: z.string(),
  }),
);

/** `data` of GET /payment-link/payment/status. */
export const paymentStatusSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    mode: z.string(),
    type: z.string(),
    category: z.string(),
    amount,
    settledAmount: amount,
    charges: amount,
    vat: amount,
    reference: z.string(),
    status: z.string(),
    paidAt: timestamp,
    walletType: z.string(),
    description: z.string(),
    sessionId: z.string(),
    isMerchantAccount: z.boolean(),
    isServiceAccount: z.boolean(),
    externalReference: z.string(),
    externalTransactionId: z.nullable(z.string()),
    merchantId: z.string(),
    walletId: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    deletedAt: z.nullable(timestamp),
    metadata: paymentStatusMetadata,
  }),
);
export type PaymentStatus = z.infer<typeof paymentStatusSchema>;
