/** A marshalled attribute value, as it travels on the wire. */
export type AttributeValue = {
  readonly S?: string;
  readonly N?: string;
  readonly B?: Uint8Array;
  readonly BOOL?: boolean;
  readonly NULL?: boolean;
  readonly M?: Record<string, AttributeValue>;
  readonly L?: readonly AttributeValue[];
  readonly SS?: readonly string[];
  readonly NS?: readonly string[];
};

/** An item's size by DynamoDB's rules: attribute names plus values (numbers ~1 byte per 2 digits + 1). */
export function itemBytes(item: Record<string, AttributeValue>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name) + valueBytes(value);
  return bytes;
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\.|e.*$/gi, '').length / 2) + 1;
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.M !== undefined) return 3 + itemBytes(value.M);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueBytes(element), 0);
  if (value.SS !== undefined) return value.SS.reduce((sum, element) => sum + Buffer.byteLength(element), 0);
  if (value.NS !== undefined)
    return value.NS.reduce((sum, element) => sum + Math.ceil(element.length / 2) + 1, 0);
  return 0;
}
