/** Timestamp formats of the interface. */

/** Listing form: UTC, trailing Z, milliseconds, e.g. `2026-11-22T09:15:30.123Z`. */
export function isoUtc(date: Date): string {
  return date.toISOString();
}

/** Wallet-operation `paidAt` form: +01:00 (Lagos) offset, no milliseconds, e.g. `2026-11-22T10:15:30+01:00`. */
export function isoLagos(date: Date): string {
  const shifted = new Date(date.getTime() + 60 * 60 * 1000);
  return `${shifted.toISOString().slice(0, 19)}+01:00`;
}

/** Settlement `date` form: `YYYY-MM-DD`, the calendar day in Lagos (the provider's business day). */
export function calendarDate(date: Date): string {
  return isoLagos(date).slice(0, 10);
}

/** `yyMMddHHmmss` in UTC, used inside session ids. */
export function compactStamp(date: Date): string {
  return date.toISOString().slice(2, 19).replace(/[-T:]/g, '');
}
