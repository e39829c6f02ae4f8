import { formatNaira } from '../../money.js';

/** Naira with kobo, exactly (lib/money.ts): `NGN 1,500,000.00`. */
export const naira = (kobo: number): string => formatNaira(kobo);

/** The last four digits only: `•••• 6789`. */
export function maskedAccount(accountNumber: string | undefined): string {
  if (!accountNumber) return '';
  return `•••• ${accountNumber.slice(-4)}`;
}

/** A principal as people read it: `alice#cognito:<sub>` is alice; an ARN is its last part. */
export function personName(id: string | undefined): string {
  if (!id) return '';
  const name = id.split('#cognito:')[0] ?? id;
  return name.includes('/') ? (name.split('/').pop() ?? name) : name;
}

/** A time element in the merchant's zone, with the UTC instant on hover (its title) and in `datetime`. */
export function timeIn(timeZone: string, iso: string | undefined): HTMLTimeElement | string {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const local = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(at);
  const element = document.createElement('time');
  element.dateTime = at.toISOString();
  element.title = `${at.toISOString().replace('.000Z', 'Z')} (UTC)`;
  element.textContent = local;
  return element;
}

/** How long ago, for a queue's age column. */
export function age(iso: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.round((now - Date.parse(iso)) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} d`;
}
