/**
 * One `Intl.DateTimeFormat` per purpose and time zone, built once: building one costs far more than using it,
 * and the claim path and the recurrence rules ask for calendar parts of instants all the time.
 *
 * @example const dayFormat = zonedFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' });
 * dayFormat('Africa/Lagos').format(new Date()); // "2026-11-22"
 */
export function zonedFormat(
  locale: string,
  options: Omit<Intl.DateTimeFormatOptions, 'timeZone'>,
): (timeZone: string) => Intl.DateTimeFormat {
  const byZone = new Map<string, Intl.DateTimeFormat>();
  return (timeZone) => {
    let formatter = byZone.get(timeZone);
    if (!formatter) {
      formatter = new Intl.DateTimeFormat(locale, { ...options, timeZone });
      byZone.set(timeZone, formatter);
    }
    return formatter;
  };
}
