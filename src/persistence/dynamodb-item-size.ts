/** kaiwa's ceiling for one item: DynamoDB allows 400 KB, the margin absorbs estimation slack. */
export const MAX_ITEM_BYTES = 350 * 1024;

/** An attribute value as the document client reads and writes it. */
export type ItemValue =
  | string
  | number
  | boolean
  | null
  | Uint8Array
  | ReadonlySet<string | number | Uint8Array>
  | readonly ItemValue[]
  | { readonly [name: string]: ItemValue };

/** An item: attribute names to values (kaiwa writes scalars, binaries and string sets). */
export type ScalarItem = Readonly<Record<string, ItemValue>>;

/**
 * An item's size as DynamoDB bills and limits it: every attribute's name plus its value.
 * Strings count their UTF-8 bytes, binaries their bytes, booleans and nulls one byte, numbers
 * at most 21 bytes (DynamoDB stores up to 38 significant digits in about half a byte per digit,
 * plus one); a set counts its elements; a list or map 3 bytes plus 1 per element plus the
 * elements (with a map's keys).
 */
export function dynamoDbItemSize(item: ScalarItem): number {
  let size = 0;
  for (const [name, value] of Object.entries(item))
    size += Buffer.byteLength(name, 'utf8') + valueSize(value);
  return size;
}

/** The write units DynamoDB bills for writing an item of this size: one per started KB, at least one. */
export function writeUnits(sizeBytes: number): number {
  return Math.max(1, Math.ceil(sizeBytes / 1024));
}

function valueSize(value: ItemValue): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return numberSize(value);
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let size = 0;
    for (const element of value as ReadonlySet<string | number | Uint8Array>) size += valueSize(element);
    return size;
  }
  if (Array.isArray(value)) {
    return (
      3 + (value as readonly ItemValue[]).reduce((sum: number, element) => sum + 1 + valueSize(element), 0)
    );
  }
  let size = 3;
  for (const [key, element] of Object.entries(value as Record<string, ItemValue>)) {
    size += 1 + Buffer.byteLength(key, 'utf8') + valueSize(element);
  }
  return size;
}

function numberSize(value: number): number {
  const digits = String(Math.abs(value))
    .replace(/[.e+-]/g, '')
    .replace(/^0+/, '').length;
  return Math.min(21, Math.ceil(Math.max(digits, 1) / 2) + 1);
}
