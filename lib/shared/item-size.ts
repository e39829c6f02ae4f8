/**
 * An item's size by DynamoDB's rules, from its plain (unmarshalled) values: each attribute's name plus its value;
 * strings in UTF-8 bytes, numbers about one byte per two significant digits plus one, a map or list 3 bytes
 * plus its entries (a list 1 more per element), booleans and null 1. What a write costs follows from it (one
 * unit per started KB), so a writer can keep an item under a boundary.
 */
export function itemBytes(item: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value !== undefined) bytes += Buffer.byteLength(name) + valueBytes(value);
  }
  return bytes;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number')
    return Math.ceil(String(Math.abs(value)).replace(/\.|e.*$/gi, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null) return 1;
  if (Array.isArray(value))
    return 3 + value.reduce((sum: number, element) => sum + 1 + valueBytes(element), 0);
  if (value instanceof Uint8Array) return value.byteLength;
  // A string or number set: its elements, without the list's overheads.
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueBytes(element), 0);
  if (typeof value === 'object') return 3 + itemBytes(value as Record<string, unknown>);
  return 0;
}
