import { MoneyError, toKobo } from '../money.js';
import { ProviderInvalidRequestError } from './errors.js';

/**
 * Checks an amount before anything is sent. The interface takes whole naira on the wallet endpoints and
 * the bulk item update, and naira with at most two decimals elsewhere (CONTRACT.md); sending anything else
 * would be refused, or worse, rounded by someone.
 */
export function assertAmount(amount: number, precision: 'whole-naira' | 'kobo', field = 'amount'): void {
  const wholeOk = precision === 'kobo' || Number.isInteger(amount);
  let koboOk = true;
  try {
    toKobo(amount);
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
    koboOk = false;
  }
  if (!wholeOk || !koboOk || !(amount > 0)) {
    const expected =
      precision === 'whole-naira' ? 'a whole number of naira' : 'naira with at most two decimals';
    throw new ProviderInvalidRequestError(`${field} ${amount} must be ${expected}, greater than 0`);
  }
}
