import { appendFileSync, readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
// The classic zod build reads JSON Schema (`fromJSONSchema`); the documented schemas are read from the
// committed docs/openapi.json, not from the zod schemas that generated it, so a document that says something
// else than the code fails here.
import { fromJSONSchema, type ZodType } from 'zod';
import type { ApiHandler } from '../../../lib/api/index.js';
import { mostSpecificFirst } from '../../../lib/api/router.js';

type JsonSchema = Record<string, unknown>;

interface OpenApiDocument {
  readonly paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  readonly components: { readonly schemas: Record<string, JsonSchema> };
  readonly 'x-problem-types': readonly { type: string; statuses: number[] }[];
}

interface Response {
  readonly description: string;
  readonly content: Record<string, { schema: JsonSchema }>;
}

/** The JSON Schema keywords the documented schemas use that `fromJSONSchema` enforces (or that only annotate). */
export const ENFORCED_KEYWORDS = new Set([
  '$ref',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'enum',
  'const',
  'anyOf',
  'allOf',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'maxItems',
  'maxProperties',
  'description',
  // Not JSON Schema: the size proof's claims (test/infra/api-answer-sizes.test.ts), enforced by `checkSizeClaims`.
  'x-printable',
  'maxJsonBytes',
]);

const UNPRINTABLE = /\p{Cc}|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;

/**
 * The claims the size proof reads that JSON Schema cannot state: a string marked `x-printable` holds no control
 * character or lone surrogate, a value with `maxJsonBytes` is at most that many bytes as JSON. Follows `$ref`,
 * properties, items and record values; a union's branches are not followed (which one applies is unknown).
 */
function checkSizeClaims(schema: JsonSchema, value: unknown, at: string): string | undefined {
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const target = contractDocument.components.schemas[ref.replace('#/components/schemas/', '')];
    return target ? checkSizeClaims(target, value, at) : undefined;
  }
  const bytes = schema.maxJsonBytes;
  if (typeof bytes === 'number' && Buffer.byteLength(JSON.stringify(value)) > bytes)
    return `${at}: more than ${bytes} bytes as JSON`;
  if (schema['x-printable'] === true && typeof value === 'string' && UNPRINTABLE.test(value))
    return `${at}: an unprintable character in a string marked x-printable`;
  const children: [JsonSchema, unknown, string][] = [];
  if (Array.isArray(value) && typeof schema.items === 'object' && schema.items !== null)
    for (const [n, item] of value.entries()) children.push([schema.items as JsonSchema, item, `${at}[${n}]`]);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const rest = schema.additionalProperties;
    for (const [key, field] of Object.entries(value)) {
      const fieldSchema =
        properties[key] ?? (typeof rest === 'object' && rest !== null ? (rest as JsonSchema) : undefined);
      if (fieldSchema) children.push([fieldSchema, field, `${at}.${key}`]);
    }
  }
  for (const [childSchema, child, where] of children) {
    const found = checkSizeClaims(childSchema, child, where);
    if (found) return found;
  }
  return undefined;
}

export const contractDocument: OpenApiDocument = JSON.parse(
  readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'),
);

/** Every keyword used in a schema position of the document's response schemas. */
export function keywordsIn(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) keywordsIn(item, found);
    return found;
  }
  if (typeof schema !== 'object' || schema === null) return found;
  for (const [keyword, value] of Object.entries(schema)) {
    found.add(keyword);
    if (keyword === 'properties' && typeof value === 'object' && value !== null) {
      for (const property of Object.values(value)) keywordsIn(property, found);
    } else if (['items', 'additionalProperties', 'propertyNames', 'anyOf', 'allOf'].includes(keyword)) {
      keywordsIn(value, found);
    }
  }
  return found;
}

// The most specific template first, as API Gateway and the router choose (`/payouts/export.csv` before `/payouts/{id}`).
const templates = mostSpecificFirst(Object.keys(contractDocument.paths).map((path) => ({ path }))).map(
  ({ path: template }) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
  }),
);

const validators = new Map<string, ZodType>();

/** A documented schema as a validator; `$ref`s point into `components.schemas`. */
function validatorOf(schema: JsonSchema): ZodType {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (!validator) {
    const root = JSON.parse(
      JSON.stringify({ ...schema, $defs: contractDocument.components.schemas }).replaceAll(
        '#/components/schemas/',
        '#/$defs/',
      ),
    );
    validator = fromJSONSchema(root) as ZodType;
    validators.set(key, validator);
  }
  return validator;
}

/** An answer the document does not allow. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

/**
 * Checks one answer of the ops API against docs/openapi.json: its status must be documented for the
 * operation, with its content type, and its body must satisfy that schema. A path no route serves is the
 * router's `not-found` problem, and a route's wrong method `method-not-allowed`.
 */
export function checkAnswer(method: string, path: string, result: APIGatewayProxyStructuredResultV2): void {
  const status = result.statusCode ?? 200;
  const mediaType = String(result.headers?.['content-type'] ?? '').split(';')[0] ?? '';
  const matching = templates.filter((entry) => entry.pattern.test(path.replace(/\/+$/, '') || '/'));
  const operation = matching
    .map((entry) => ({ ...entry, operation: contractDocument.paths[entry.template]?.[method.toLowerCase()] }))
    .find((entry) => entry.operation !== undefined);
  let where: string;
  let schema: JsonSchema | undefined;
  if (operation?.operation) {
    where = `${method} ${operation.template}`;
    const response = operation.operation.responses[String(status)];
    if (!response) {
      throw new ContractViolation(`${where} answered ${status}, which docs/openapi.json does not document`);
    }
    schema = response.content[mediaType]?.schema;
    if (!schema) {
      throw new ContractViolation(
        `${where} answered ${status} as ${mediaType || 'no content type'}; documented: ${Object.keys(response.content).join(', ')}`,
      );
    }
  } else {
    where = `${method} ${path} (no route)`;
    const slug = matching.length > 0 ? 'method-not-allowed' : 'not-found';
    schema = { $ref: `#/components/schemas/Problem.${slug}` };
  }
  // CONTRACT_COVERAGE_FILE=<path> npx vitest run …: which documented answers the suites produced.
  if (process.env.CONTRACT_COVERAGE_FILE)
    appendFileSync(process.env.CONTRACT_COVERAGE_FILE, `${where}\t${status}\n`);
  // A JSON answer is parsed; any other (a CSV download) is checked as the string it is.
  const body: unknown =
    result.body === undefined || result.body === ''
      ? undefined
      : mediaType.endsWith('json')
        ? JSON.parse(result.body)
        : result.body;
  const parsed = validatorOf(schema).safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `at ${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message}`)
      .join('; ');
    throw new ContractViolation(
      `${where} answered ${status} with a body docs/openapi.json does not allow: ${issues}`,
    );
  }
  const claim = checkSizeClaims(schema, body, '(body)');
  if (claim) throw new ContractViolation(`${where} answered ${status} against a size claim: ${claim}`);
  if (
    typeof body === 'object' &&
    body !== null &&
    'status' in body &&
    mediaType === 'application/problem+json'
  ) {
    if (body.status !== status) {
      throw new ContractViolation(
        `${where} answered ${status} with a problem whose status is ${String(body.status)}`,
      );
    }
  }
}

/**
 * The API handler, with every answer checked against docs/openapi.json (`checkAnswer`): a test that makes the
 * API answer something undocumented fails, naming the route, the status and where the body differs.
 */
export function checkedAgainstContract(api: ApiHandler): ApiHandler {
  return async (event: APIGatewayProxyEventV2, invocation) => {
    const result = await api(event, invocation);
    checkAnswer(event.requestContext.http.method.toUpperCase(), event.rawPath, result);
    return result;
  };
}
