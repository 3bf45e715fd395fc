/**
 * Sets `key` as the most recent entry of `map` — a Map keeps insertion order, used here as
 * recency — and removes the least recent entries beyond `max`. Returns the removed keys.
 *
 * @example
 * for (const dropped of setMostRecent(journals, sourceId, entries, 100)) forget(dropped);
 */
export function setMostRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): K[] {
  map.delete(key);
  map.set(key, value);
  const removed: K[] = [];
  for (const oldest of map.keys()) {
    if (map.size <= max) break;
    map.delete(oldest);
    removed.push(oldest);
  }
  return removed;
}
