import * as z from 'zod/mini';

/**
 * The most bytes a value accepted by `schema` can take as JSON (`JSON.stringify`, UTF-8), read from the schema's
 * own maxima. Throws, naming the path, where the schema has none (a string without a maximum length, an array
 * without a maximum count, a record without `maxProperties` in its metadata, an unknown): a schema that grows
 * unbounded fails the size proofs instead of passing.
 *
 * Conservative by construction: every character of a string is counted as its longest JSON form (`\u001f`,
 * six bytes; three where the schema marks it `x-printable`, one for an ISO instant), every optional field as
 * present.
 */
export function maxJsonBytes(schema: z.ZodMiniType, path = '$'): number {
  const def = defOf(schema);
  // A maximum declared for the whole value (z.meta({ maxJsonBytes })), which its producers enforce: a metadata
  // record is refused above 2 KB as JSON, whatever its keys and values could add up to.
  const declared = z.globalRegistry.get(schema)?.maxJsonBytes;
  if (typeof declared === 'number') return declared;
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.ZodMiniType>;
      const fields = Object.entries(shape).map(
        ([key, field]) => JSON.stringify(key).length + 1 + maxJsonBytes(field, `${path}.${key}`),
      );
      return 2 + sum(fields) + Math.max(0, fields.length - 1);
    }
    case 'optional':
    case 'default':
    case 'prefault':
    case 'readonly':
      return maxJsonBytes(def.innerType as z.ZodMiniType, path);
    case 'lazy':
      // Built on first use (cold start), not recursive: the schema it builds is the one to measure.
      return maxJsonBytes((def.getter as () => z.ZodMiniType)(), path);
    case 'nullable':
      return Math.max(4, maxJsonBytes(def.innerType as z.ZodMiniType, path));
    case 'string':
      return 2 + stringCharBytes(schema, def) * maxLengthOf(def, path);
    case 'number':
      return numberBytes(def);
    case 'boolean':
      return 5;
    case 'literal':
      return Math.max(...(def.values as unknown[]).map((value) => utf8(JSON.stringify(value))));
    case 'enum':
      return Math.max(
        ...Object.values(def.entries as Record<string, unknown>).map((v) => utf8(JSON.stringify(v))),
      );
    case 'array': {
      const count = checkValue(def, 'max_length', 'maximum');
      if (count === undefined) throw new Error(`${path}: an array without a maximum count is unbounded`);
      const element = maxJsonBytes(def.element as z.ZodMiniType, `${path}[]`);
      return 2 + count * element + Math.max(0, count - 1);
    }
    case 'record': {
      // A record's count comes from its `maxProperties` (z.meta, also in the OpenAPI document).
      const keys = defOf(def.keyType as z.ZodMiniType);
      const count =
        keys.type === 'enum'
          ? Object.keys(keys.entries as object).length
          : z.globalRegistry.get(schema)?.maxProperties;
      if (typeof count !== 'number') throw new Error(`${path}: a record without maxProperties is unbounded`);
      const key = maxJsonBytes(def.keyType as z.ZodMiniType, `${path}{key}`);
      const value = maxJsonBytes(def.valueType as z.ZodMiniType, `${path}{}`);
      return 2 + count * (key + 1 + value) + Math.max(0, count - 1);
    }
    case 'null':
      return 4;
    case 'union':
      return Math.max(...(def.options as z.ZodMiniType[]).map((option) => maxJsonBytes(option, path)));
    default:
      throw new Error(`${path}: no maximum size known for a ${String(def.type)} schema`);
  }
}

type Def = { type: string; checks?: { _zod: { def: Record<string, unknown> } }[]; [key: string]: unknown };

function defOf(schema: z.ZodMiniType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function checkValue(def: Def, check: string, field: string): number | undefined {
  const found = (def.checks ?? []).map((c) => c._zod.def).find((c) => c.check === check);
  const value = found?.[field];
  return typeof value === 'number' ? value : undefined;
}

/**
 * The most bytes one character of a string takes as JSON: 6 (`\u001f`) in general; 3 (a BMP character's UTF-8;
 * `"` and `\` take 2, a surrogate pair 4 for two) where the schema is marked `x-printable` (no control character
 * and no lone surrogate, which its producers guarantee); 1 for an ISO date or instant, which is ASCII digits and
 * punctuation only.
 */
function stringCharBytes(schema: z.ZodMiniType, def: Def): number {
  if (def.format === 'datetime' || def.format === 'date') return 1;
  return z.globalRegistry.get(schema)?.['x-printable'] === true ? 3 : 6;
}

/** A string's maximum length: its `maxLength`, or the fixed length of a `^[class]{n}$` pattern. */
function maxLengthOf(def: Def, path: string): number {
  const max = checkValue(def, 'max_length', 'maximum') ?? checkValue(def, 'length_equals', 'length');
  if (max !== undefined) return max;
  for (const check of def.checks ?? []) {
    const pattern = check._zod.def.pattern;
    const fixed = pattern instanceof RegExp ? /^\^\[[^\]]+\]\{(\d+)\}\$$/.exec(pattern.source) : null;
    if (fixed) return Number(fixed[1]);
  }
  throw new Error(`${path}: a string without a maximum length is unbounded`);
}

/** The longest JSON form of a number within its bounds: an integer's digits and sign, or any double's. */
function numberBytes(def: Def): number {
  const integer = (def.checks ?? []).some(
    (c) => c._zod.def.check === 'number_format' && String(c._zod.def.format).includes('int'),
  );
  const bounds = ['greater_than', 'less_than'].map((check) => checkValue(def, check, 'value'));
  if (integer && bounds.every((bound) => bound !== undefined))
    return Math.max(...bounds.map((bound) => String(Math.trunc(bound as number)).length));
  // Unbounded: the longest safe integer with its sign, or the longest double (`-2.2250738585072014e-308`).
  return 24;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function utf8(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
