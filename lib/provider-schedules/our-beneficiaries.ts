import type { PayoutInstruction } from '../payouts/model.js';
import type { PayoutEngine } from '../payouts/payout-engine.js';
import type { CreatePayoutRequest } from '../payouts/schemas.js';
import type { RecurrenceService } from '../recurrence/recurrence-service.js';
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
  engine: Pick<PayoutEngine, 'list'>,
  recurrences: Pick<RecurrenceService, 'list'>,
): () => Promise<ReadonlySet<string>> {
  return async () => {
    const keys = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await recurrences.list({ status: 'active', limit: 100, ...(cursor && { cursor }) });
      for (const recurrence of result.items) {
        const key = keyOf(recurrence.template);
        if (key) keys.add(key);
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    cursor = undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await engine.list({ status: 'scheduled', limit: 100, ...(cursor && { cursor }) });
      for (const payout of result.items) {
        const key = keyOf(payout.instruction);
        if (key) keys.add(key);
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return keys;
  };
}
