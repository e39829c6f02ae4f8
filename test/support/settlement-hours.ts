/** A one-hour window of the Lagos clock (UTC+1) that starts twelve hours from now: now is outside it. */
export function windowAwayFromNow(): string {
  const start = (new Date().getUTCHours() + 1 + 12) % 24;
  const pad = (hour: number) => String(hour).padStart(2, '0');
  return `${pad(start)}:00-${pad(start + 1)}:00`;
}
