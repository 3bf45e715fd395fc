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
