import { errorKind } from './shared/errors.js';
/**
 * Money inside the project is an integer number of kobo (1 naira = 100 kobo).
 * The provider speaks major-unit JSON numbers (294.9 naira); this module is the one place
 * that converts between the two, exactly, without floating-point arithmetic on amounts.
 */

/** Thrown when a value cannot be represented exactly as an amount. */
export class MoneyError extends /* @__PURE__ */ errorKind('MoneyError', 'INVALID_AMOUNT') {}

const KOBO_PER_NAIRA = 100;
const DECIMAL_PATTERN = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Converts a major-unit amount as the wire has it into integer kobo, exactly.
 *
 * @example toKobo(294.9) // 29490
 * @throws MoneyError for more than two decimals, non-finite values or amounts beyond safe integers
 */
export function toKobo(naira: number): number {
  if (!Number.isFinite(naira)) throw new MoneyError(`amount ${naira} is not a finite number`);
  // String(n) is the shortest decimal that round-trips to n, so 294.9 reads as "294.9", not 294.899999…
  const text = String(naira);
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) throw new MoneyError(`amount ${text} cannot be read as a decimal with at most two places`);
  const [, sign, whole = '0', fraction = ''] = match;
  if (fraction.length > 2) throw new MoneyError(`amount ${text} has more than two decimal places`);
  const kobo = koboOfDigits(whole, fraction);
  if (kobo === undefined) throw new MoneyError(`amount ${text} is too large`);
  return sign === '-' ? -kobo : kobo;
}

/** Naira digits and at most two decimal digits as kobo, from the digits; undefined beyond a safe integer. */
function koboOfDigits(whole: string, fraction: string): number | undefined {
  const kobo = Number(whole) * KOBO_PER_NAIRA + Number(fraction.padEnd(2, '0'));
  return Number.isSafeInteger(kobo) ? kobo : undefined;
}

/**
 * Converts integer kobo into the major-unit number the provider expects.
 * Division of two exact integers is correctly rounded, so the result is the same double as the
 * decimal literal (29490 / 100 === 294.9).
 *
 * @example toNaira(29490) // 294.9
 */
export function toNaira(kobo: number): number {
  assertKobo(kobo);
  return kobo / KOBO_PER_NAIRA;
}

/**
 * Converts kobo into whole naira for the provider bodies that take an integer amount.
 *
 * @example toWholeNaira(500000) // 5000
 * @throws MoneyError when the amount has a kobo part
 */
export function toWholeNaira(kobo: number): number {
  assertKobo(kobo);
  if (kobo % KOBO_PER_NAIRA !== 0) {
    throw new MoneyError(
      `amount ${kobo} kobo is not a whole number of naira; this provider endpoint takes whole naira`,
    );
  }
  return kobo / KOBO_PER_NAIRA;
}

const NAIRA_TEXT_PATTERN = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/;

/**
 * Reads an amount a person typed in naira (the console's forms) into kobo, exactly, from its digits: commas only
 * as thousands separators, at most two decimals, more than zero.
 *
 * @example koboOfNairaText('1,500,000.5') // 150000050
 * @throws MoneyError naming what is wrong with the text
 */
export function koboOfNairaText(text: string): number {
  const match = NAIRA_TEXT_PATTERN.exec(text.trim());
  if (!match) throw new MoneyError('must be naira with at most two decimals, e.g. 1,500,000.50');
  const [, whole = '0', fraction = ''] = match;
  const kobo = koboOfDigits(whole.replaceAll(',', ''), fraction);
  if (kobo === undefined) throw new MoneyError('is too large');
  if (kobo === 0) throw new MoneyError('must be more than zero');
  return kobo;
}

/** True when the value is a safe integer, i.e. a valid kobo amount (sign not checked). */
export function isKobo(value: number): boolean {
  return Number.isSafeInteger(value);
}

/** Throws MoneyError unless the value is a safe integer number of kobo. */
export function assertKobo(kobo: number): void {
  if (!Number.isSafeInteger(kobo)) throw new MoneyError(`amount ${kobo} is not an integer number of kobo`);
}

/**
 * Formats kobo for people, e.g. in audit reasons and alerts.
 *
 * @example formatNaira(123450) // "NGN 1,234.50"
 */
export function formatNaira(kobo: number): string {
  assertKobo(kobo);
  const sign = kobo < 0 ? '-' : '';
  const absolute = Math.abs(kobo);
  // Grouped by hand, not with toLocaleString: the first locale-aware format a process makes initialises ICU's
  // number formatting, ~20 ms of a cold start (the settlement handler formats the amount it pays).
  const whole = String(Math.trunc(absolute / KOBO_PER_NAIRA)).replace(/\B(?=(\d{3})+$)/g, ',');
  const fraction = String(absolute % KOBO_PER_NAIRA).padStart(2, '0');
  return `${sign}NGN ${whole}.${fraction}`;
}
