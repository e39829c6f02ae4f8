import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { IdempotencyKeySchema } from '../payouts/index.js';
import { fieldIssues } from '../shared/validation.js';
import type * as z from '../shared/zod.js';
import { ApiError, validationError } from './errors.js';
import { ResourceIdSchema } from './schemas.js';

/** The largest JSON body accepted. */
export const MAX_BODY_BYTES = 256 * 1024;

/** The raw body text, or undefined when there is none. */
function bodyText(event: APIGatewayProxyEventV2): string | undefined {
  if (event.body === undefined || event.body === '') return undefined;
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
    throw validationError([{ path: '(body)', message: `must be at most ${MAX_BODY_BYTES} bytes` }]);
  }
  return text;
}

/**
 * Parses the JSON body against a schema; every failure is a 400 naming the field.
 * `emptyAs` is what a missing body means (`{}` for commands whose fields are all optional).
 */
export function parseBody<T extends z.ZodMiniType>(
  event: APIGatewayProxyEventV2,
  schema: T,
  emptyAs?: unknown,
): z.infer<T> {
  const text = bodyText(event);
  let value: unknown;
  if (text === undefined) {
    if (emptyAs === undefined) {
      throw validationError([{ path: '(body)', message: 'a JSON body is required' }]);
    }
    value = emptyAs;
  } else {
    let prototypeKey = false;
    try {
      value = JSON.parse(text, (key, parsed: unknown) => {
        if (key === '__proto__') prototypeKey = true;
        return parsed;
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'unreadable';
      throw validationError([{ path: '(body)', message: `is not valid JSON: ${reason}` }]);
    }
    // JSON.parse keeps "__proto__" as a plain key, but code that copies the object may set a prototype with it.
    if (prototypeKey) {
      throw validationError([{ path: '(body)', message: 'must not contain a key named __proto__' }]);
    }
  }
  return parseWith(schema, value, (path) => path);
}

/** The query string as an object; a name given twice is refused rather than silently merged. */
export function queryOf(event: APIGatewayProxyEventV2): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(event.rawQueryString ?? '')) {
    if (Object.hasOwn(query, name)) {
      throw validationError([{ path: `query.${name}`, message: 'must be given at most once' }]);
    }
    query[name] = value;
  }
  return query;
}

/** Parses the query string against a schema; issue paths read `query.limit`. */
export function parseQuery<T extends z.ZodMiniType>(event: APIGatewayProxyEventV2, schema: T): z.infer<T> {
  return parseWith(schema, queryOf(event), (path) => (path === '(root)' ? 'query' : `query.${path}`));
}

/** The `Idempotency-Key` header, required, 1-255 printable ASCII characters. */
export function idempotencyKeyOf(event: APIGatewayProxyEventV2): string {
  const key = optionalIdempotencyKeyOf(event);
  if (key === undefined) {
    throw validationError([{ path: 'Idempotency-Key', message: 'header is required' }]);
  }
  return key;
}

/** The `Idempotency-Key` header where a route takes one but does not require it; validated when present. */
export function optionalIdempotencyKeyOf(event: APIGatewayProxyEventV2): string | undefined {
  const value = event.headers['idempotency-key'];
  if (value === undefined) return undefined;
  const parsed = IdempotencyKeySchema.safeParse(value);
  if (!parsed.success) {
    throw validationError(
      parsed.error.issues.map((issue) => ({ path: 'Idempotency-Key', message: issue.message })),
    );
  }
  return parsed.data;
}

function parseWith<T extends z.ZodMiniType>(
  schema: T,
  value: unknown,
  renamePath: (path: string) => string,
): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw validationError(
      fieldIssues(parsed.error).map((issue) => ({ path: renamePath(issue.path), message: issue.message })),
    );
  }
  return parsed.data;
}

/** The `{id}` path parameter; a malformed id cannot exist, so it is a 404 like any unknown id. */
export function idParam(request: { readonly params: Readonly<Record<string, string>> }): string {
  const parsed = ResourceIdSchema.safeParse(request.params.id);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no resource has this id');
  return parsed.data;
}
