import { TableIndexes } from '../table/index.js';
import type { Refund } from './model.js';

// The item alone, apart from its reader (accepted-refunds.ts): the functions that record refunds write it and never
// read it, so their bundles carry neither the reader nor its schema.

const { byStatus } = TableIndexes;

/**
 * The refunds the provider accepted, one item each, by the provider's refund id: a refund's wallet record names
 * that id as its `reference` (lib/provider/CONTRACT.md, "A refund's wallet record"), and the daily statement
 * finds our refund from it with one GetItem. The item is written in the same transaction that records the
 * refund's `providerRefundId` (DynamoDbRefundStore.update), under the refunds' own key prefix (`REFUND#*`), so
 * the functions that record refunds already may write it.
 */
export const acceptedRefundKeys = {
  byProviderRefundId: (providerRefundId: string) => ({
    pk: `REFUND#PROVIDER#${providerRefundId}`,
    sk: 'ACCEPTED',
  }),
  /**
   * The gsi1 partition of the refunds accepted by the provider's answer, sorted `<acceptedAt>#<refundId>`: the
   * statement reads exactly those of its day.
   */
  acceptedPartition: 'REFUND#ACCEPTED',
} as const;

/**
 * How we came to hold a refund as accepted: `answer`, the provider answered our `POST /refund` with its refund (its
 * record was made just before `acceptedAt`); `resolution`, two people settled an `unknown` refund as accepted (its
 * record was made when it was sent, which we do not know, so it is matched when listed but never expected on a
 * day). A union, not a constant object: the functions that send refunds carry no more than they must (their
 * bundles are at their size limit).
 */
export type AcceptedBy = 'answer' | 'resolution';

/** A refund the provider accepted, as the daily statement matches it. Money is integer kobo. */
export interface AcceptedRefund {
  readonly refundId: string;
  readonly providerRefundId: string;
  /** The payment-link transaction refunded. */
  readonly transactionId: string;
  readonly amountKobo: number;
  /** When we recorded the acceptance (the refund's `updatedAt` of that change). */
  readonly acceptedAt: string;
  readonly acceptedBy: AcceptedBy;
}

/**
 * The stored item of `refund`, just accepted as `providerRefundId` by the provider's answer, or by two people's
 * resolution (`resolved`): only a refund the provider's answer accepted is in the gsi1 partition (sparse).
 */
export function acceptedRefundItem(
  refund: Refund,
  providerRefundId: string,
  resolved: boolean,
): Record<string, unknown> {
  return {
    ...acceptedRefundKeys.byProviderRefundId(providerRefundId),
    entity: 'acceptedRefund',
    refundId: refund.id,
    providerRefundId,
    transactionId: refund.transactionId,
    amountKobo: refund.amountKobo,
    acceptedAt: refund.updatedAt,
    acceptedBy: resolved ? 'resolution' : 'answer',
    ...(!resolved && {
      [byStatus.partitionKey]: acceptedRefundKeys.acceptedPartition,
      [byStatus.sortKey]: `${refund.updatedAt}#${refund.id}`,
    }),
  };
}
