/** Validation of bulk payout items (CONTRACT.md "Bulk payout items"). */
import { bankName } from './banks.js';
import { LIMITS } from './contract.js';
import type { BulkPayoutItem } from './state.js';

/** Re-validates an item in place: 10-digit account number, known bank code, whole-naira amount > 0. */
export function revalidate(item: BulkPayoutItem): void {
  const reasons: string[] = [];
  if (!LIMITS.accountNumberPattern.test(item.accountNumber)) reasons.push('account number must be 10 digits');
  if (bankName(item.bankCode) === undefined) reasons.push(`unknown bank code ${item.bankCode}`);
  if (item.amountKobo <= 0 || item.amountKobo % 100 !== 0) {
    reasons.push('amount must be a whole number of naira greater than 0');
  }
  item.isValid = reasons.length === 0;
  item.reason = item.isValid ? null : reasons.join('; ');
}
