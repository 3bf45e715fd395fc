/** kaiwa's ceiling for one item: DynamoDB allows 400 KB, the margin absorbs estimation slack. */
export const MAX_ITEM_BYTES = 350 * 1024;

/** The attribute values kaiwa writes: strings, numbers and booleans (snapshots are JSON strings). */
export type ScalarItem = Readonly<Record<string, string | number | boolean>>;

/**
 * An item's size as DynamoDB bills and limits it: every attribute's name plus its value.
 * Strings count their UTF-8 bytes, booleans one byte, numbers at most 21 bytes (DynamoDB
 * stores up to 38 significant digits in about half a byte per digit, plus one).
 */
export function dynamoDbItemSize(item: ScalarItem): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    size += Buffer.byteLength(name, 'utf8');
    if (typeof value === 'string') size += Buffer.byteLength(value, 'utf8');
    else if (typeof value === 'boolean') size += 1;
    else size += numberSize(value);
  }
  return size;
}

function numberSize(value: number): number {
  const digits = String(Math.abs(value))
    .replace(/[.e+-]/g, '')
    .replace(/^0+/, '').length;
  return Math.min(21, Math.ceil(Math.max(digits, 1) / 2) + 1);
}
