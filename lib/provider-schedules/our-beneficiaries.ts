import type { CreatePayoutRequest, PayoutInstruction, PayoutListing } from '../payouts/index.js';
import type { RecurrencePage, RecurrenceStatus } from '../recurrence/index.js';
import { collectPages } from '../shared/paging.js';
import { beneficiaryKey } from './model.js';

/** Pages read on each side at most (100 per page). */
const MAX_PAGES = 10;

/** The beneficiary key of a bank payout (template or instruction); undefined for wallet payouts. */
function keyOf(payout: CreatePayoutRequest | PayoutInstruction): string | undefined {
  if (!('beneficiary' in payout)) return undefined;
  return beneficiaryKey(payout.beneficiary.bankCode, payout.beneficiary.accountNumber);
}

/**
 * Bank beneficiaries with future money movement on our side: active recurring payouts and one-off payouts
 * still `scheduled`.
 */
export function ourScheduledBeneficiaries(
  payouts: Pick<PayoutListing, 'list'>,
  recurrences: {
    list(query: { status?: RecurrenceStatus; limit: number; cursor?: string }): Promise<RecurrencePage>;
  },
): () => Promise<ReadonlySet<string>> {
  return async () => {
    const [active, scheduled] = await Promise.all([
      collectPages(
        (cursor) => recurrences.list({ status: 'active', limit: 100, ...(cursor && { cursor }) }),
        MAX_PAGES,
      ),
      collectPages(
        (cursor) => payouts.list({ status: 'scheduled', limit: 100, ...(cursor && { cursor }) }),
        MAX_PAGES,
      ),
    ]);
    const keys = new Set<string>();
    for (const key of [
      ...active.items.map((r) => keyOf(r.template)),
      ...scheduled.items.map((p) => keyOf(p.instruction)),
    ]) {
      if (key) keys.add(key);
    }
    return keys;
  };
}
