import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiRoutes } from '../../lib/api/index.js';
import { buildOpenApiDocument, OPERATION_EXAMPLES } from '../../lib/api/openapi.js';

/**
 * Each route is the one definition of its operation (lib/api/router.ts, `Route`): the document's words, parameters
 * and request body come from it, and its example (lib/api/openapi-examples.json) is keyed by its operationId.
 */
describe('the route definitions', () => {
  it('give every operation an example, keyed by an operationId a route has', () => {
    const operationIds = apiRoutes.map((route) => route.operationId);
    expect(new Set(operationIds).size).toBe(operationIds.length);
    expect(operationIds.filter((id) => !OPERATION_EXAMPLES[id])).toEqual([]);
    expect(Object.keys(OPERATION_EXAMPLES).filter((id) => !operationIds.includes(id))).toEqual([]);
  });

  it.each(apiRoutes.map((route) => [route.operationId, route] as const))(
    '%s: the example is a request body where the operation takes one, else an answer, and its schema takes it',
    (_operationId, route) => {
      const example = OPERATION_EXAMPLES[route.operationId];
      const body = route.request?.body;
      if (body) {
        expect(example && 'request' in example).toBe(true);
        if (example && 'request' in example) {
          const parsed = body.schema.safeParse(example.request);
          expect(parsed.error?.issues ?? []).toEqual([]);
        }
      } else {
        expect(example && 'response' in example).toBe(true);
        if (example && 'response' in example) {
          const answer = route.responses[example.response.status];
          expect(answer, `${route.operationId} answers ${example.response.status}`).toBeDefined();
          const parsed = answer?.schema.safeParse(example.response.body);
          expect(parsed?.error?.issues ?? []).toEqual([]);
        }
      }
    },
  );

  it('put each example in the document, on the request body or on the answer it shows', () => {
    const paths = buildOpenApiDocument().paths as Record<string, Record<string, OperationShape>>;
    for (const route of apiRoutes) {
      const operation = paths[route.path]?.[route.method.toLowerCase()];
      const example = OPERATION_EXAMPLES[route.operationId];
      if (example && 'request' in example) {
        expect(operation?.requestBody?.content['application/json']?.example).toEqual(example.request);
      } else if (example) {
        const content = operation?.responses[String(example.response.status)]?.content ?? {};
        expect(Object.values(content)[0]?.example).toEqual(example.response.body);
      }
    }
  });

  it('give the document committed as docs/openapi.json (npm run openapi writes it)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('declare a schema for every parameter their path names', () => {
    for (const route of apiRoutes) {
      const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
      expect(Object.keys(route.request?.params ?? {}), `${route.method} ${route.path}`).toEqual(names);
    }
  });
});

interface OperationShape {
  readonly requestBody?: { readonly content: Record<string, { readonly example?: unknown }> };
  readonly responses: Record<string, { readonly content: Record<string, { readonly example?: unknown }> }>;
}
