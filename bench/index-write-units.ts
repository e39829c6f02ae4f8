import { type AttributeValue, itemBytes } from './item-size.js';

/** A marshalled item, as it travels on the wire. */
export type Item = Record<string, AttributeValue>;

/** One global secondary index as CreateTable declares it. */
export interface IndexDefinition {
  readonly IndexName?: string;
  readonly KeySchema?: readonly { readonly AttributeName?: string }[];
  readonly Projection?: {
    readonly ProjectionType?: 'ALL' | 'KEYS_ONLY' | 'INCLUDE' | string;
    readonly NonKeyAttributes?: readonly string[];
  };
}

/** The parts of a CreateTable input the index rules need. */
export interface TableDefinition {
  readonly KeySchema?: readonly { readonly AttributeName?: string }[];
  readonly GlobalSecondaryIndexes?: readonly IndexDefinition[];
}

/** What one index costs for one item write, and why. */
export interface IndexWrite {
  readonly index: string;
  readonly units: number;
  readonly kind: 'none' | 'put' | 'delete' | 'key-change' | 'update';
}

const KB = 1024;
const unitsFor = (bytes: number) => Math.max(1, Math.ceil(bytes / KB));

/**
 * The index writes AWS bills for one item write, from the item before and after it (undefined: absent), by the
 * rules in the DynamoDB developer guide ("Provisioned throughput considerations for Global Secondary Indexes"):
 * - an item that gets the index's key attributes is put into the index: 1 write;
 * - an item that loses them is deleted from it: 1 write;
 * - a change of the index key's value is a delete plus a put: 2 writes;
 * - same key, some projected attribute changed: 1 write; nothing projected changed: none;
 * - an item in the index neither before nor after: none.
 * Each write costs 1 unit per started KB of the index entry (the table's and the index's key attributes plus
 * the projected ones: all of them for ALL, the listed ones for INCLUDE, none for KEYS_ONLY); a delete is sized
 * by the entry it removes. Index writes are plain writes even when the table write is transactional.
 */
export function indexWrites(
  table: TableDefinition,
  before: Item | undefined,
  after: Item | undefined,
): IndexWrite[] {
  const tableKeys = keyNames(table.KeySchema);
  return (table.GlobalSecondaryIndexes ?? []).map((index) => {
    const name = index.IndexName ?? '?';
    const indexKeys = keyNames(index.KeySchema);
    const inBefore = before !== undefined && indexKeys.every((key) => isKeyValue(before[key]));
    const inAfter = after !== undefined && indexKeys.every((key) => isKeyValue(after[key]));
    const entry = (item: Item) => projectedEntry(item, [...tableKeys, ...indexKeys], index.Projection);
    if (!inBefore && !inAfter) return { index: name, units: 0, kind: 'none' };
    if (!inBefore) return { index: name, units: unitsFor(itemBytes(entry(after as Item))), kind: 'put' };
    const oldEntry = entry(before as Item);
    if (!inAfter) return { index: name, units: unitsFor(itemBytes(oldEntry)), kind: 'delete' };
    const newEntry = entry(after as Item);
    const keyChanged = indexKeys.some((key) => canonical(before?.[key]) !== canonical(after?.[key]));
    if (keyChanged) {
      return {
        index: name,
        units: unitsFor(itemBytes(oldEntry)) + unitsFor(itemBytes(newEntry)),
        kind: 'key-change',
      };
    }
    if (canonical(oldEntry) === canonical(newEntry)) return { index: name, units: 0, kind: 'none' };
    return { index: name, units: unitsFor(itemBytes(newEntry)), kind: 'update' };
  });
}

/** The attributes an index entry holds: its keys, the table's keys and the projected attributes. */
export function projectedEntry(
  item: Item,
  keys: readonly string[],
  projection: IndexDefinition['Projection'],
): Item {
  if (projection?.ProjectionType === undefined || projection.ProjectionType === 'ALL') return item;
  const names = new Set([
    ...keys,
    ...(projection.ProjectionType === 'INCLUDE' ? (projection.NonKeyAttributes ?? []) : []),
  ]);
  const entry: Item = {};
  for (const [name, value] of Object.entries(item)) if (names.has(name)) entry[name] = value;
  return entry;
}

function keyNames(schema: TableDefinition['KeySchema']): string[] {
  return (schema ?? []).map((element) => element.AttributeName ?? '');
}

/** Index key attributes must be scalars; an item whose key attribute is missing (or not S/N/B) is not indexed. */
function isKeyValue(value: AttributeValue | undefined): boolean {
  return value !== undefined && (value.S !== undefined || value.N !== undefined || value.B !== undefined);
}

/** A serialisation that does not depend on the order of map keys, to compare two images. */
function canonical(value: unknown): string {
  if (value instanceof Uint8Array) return `B:${Buffer.from(value).toString('base64')}`;
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, element]) => element !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, element]) => `${JSON.stringify(key)}:${canonical(element)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
