import type { Payout } from '../model.js';
import { type CarriedAudit, carriedAuditOf, fromPayoutItem } from './item-codec.js';

/**
 * The audit events each payout this process read or wrote carries, by the object the store handed out: a
 * transition from it appends to them without reading the item again (`DynamoDbPayoutStore`'s `#prepare`). Payouts are
 * immutable values, so an object stands for exactly one stored version.
 */
export const carriedBy = new WeakMap<Payout, CarriedAudit>();

/** A stored payout item as a payout, remembering the audit events it carries for its next transition. */
export function payoutOf(item: Record<string, unknown>): Payout {
  const payout = fromPayoutItem(item);
  carriedBy.set(payout, carriedAuditOf(item));
  return payout;
}
