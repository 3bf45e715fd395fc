/**
 * True when `timeZone` is a zone this runtime's Intl knows, e.g. "Asia/Tokyo" or "UTC".
 * Configuration (`KAIWA_TIME_ZONE`) and the current-time tool both check zones with it.
 */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The parts Intl writes for `at` in `timeZone` with `fields` (`year`, `hour`, `timeZoneName`…), by type. */
export function zonedParts(
  at: number,
  timeZone: string,
  fields: Intl.DateTimeFormatOptions,
): Partial<Record<Intl.DateTimeFormatPartTypes, string>> {
  return Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { ...fields, timeZone })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
}

/**
 * `+09:00` from Intl's `longOffset` zone name (`GMT+09:00`), which is plain `GMT` for UTC itself.
 */
export function utcOffsetOf(longOffset: string | undefined): string {
  return (longOffset ?? 'GMT').replace(/^GMT/, '') || '+00:00';
}
