import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling/build-handler.js';
import {
  API_FUNCTIONS,
  apiFunctionServing,
  apiRouteTable,
  FALLBACK_API_FUNCTION,
} from '../../lib/api/functions/index.js';
import { apiRoutes } from '../../lib/api/index.js';
import type { Route } from '../../lib/api/router.js';

/** Every route every module of lib/api/routes declares, whether or not a function serves it. */
async function declaredRoutes(): Promise<string[]> {
  const folder = join(PROJECT_ROOT, 'lib', 'api', 'routes');
  const modules = await Promise.all(
    readdirSync(folder)
      .filter((file) => file.endsWith('.ts'))
      .map((file) => import(join(folder, file)) as Promise<Record<string, unknown>>),
  );
  return modules.flatMap((module) =>
    Object.entries(module)
      .filter(([name, value]) => name.endsWith('Routes') && Array.isArray(value))
      .flatMap(([, routes]) => (routes as Route[]).map((route) => `${route.method} ${route.path}`)),
  );
}

describe('the ops API split into functions (lib/api/functions)', () => {
  it('serves every route declared in lib/api/routes by exactly one function', async () => {
    const declared = await declaredRoutes();
    expect(declared.length).toBeGreaterThan(40);
    const servedBy = (key: string) =>
      apiRouteTable()
        .filter((route) => `${route.method} ${route.path}` === key)
        .map((route) => route.functionName);
    const wrong = declared
      .map((key) => ({ key, functions: servedBy(key) }))
      .filter((entry) => entry.functions.length !== 1);
    expect(wrong).toEqual([]);
    // And no function serves a route no module declares, or the same route twice.
    expect(
      apiRouteTable()
        .map((route) => `${route.method} ${route.path}`)
        .sort(),
    ).toEqual(declared.sort());
  });

  it('gives each path to one function, so a method it does not serve answers 405 there', () => {
    const owners = new Map<string, Set<string>>();
    for (const route of apiRouteTable()) {
      owners.set(route.path, new Set([...(owners.get(route.path) ?? []), route.functionName]));
    }
    expect([...owners].filter(([, functions]) => functions.size !== 1)).toEqual([]);
  });

  it('the local server serves the union of the functions, each route once', () => {
    expect(apiRoutes.map((route) => `${route.method} ${route.path}`).sort()).toEqual(
      apiRouteTable()
        .map((route) => `${route.method} ${route.path}`)
        .sort(),
    );
  });

  it('sends a request to the function that serves its route, and anything else to the fallback', () => {
    expect(apiFunctionServing('POST', '/payouts')).toBe('api-payouts');
    expect(apiFunctionServing('POST', '/refunds/01ARZ3NDEKTSV4RRFFQ69G5FAV/approve')).toBe('api-operations');
    expect(apiFunctionServing('GET', '/bulk-correction-jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV/results.csv')).toBe(
      'api-corrections',
    );
    expect(apiFunctionServing('POST', '/instant-settlements')).toBe('api-settlements');
    expect(apiFunctionServing('GET', '/approvals')).toBe('api-recurrences');
    expect(apiFunctionServing('GET', '/openapi.json')).toBe('api-docs');
    expect(apiFunctionServing('GET', '/no-such-route')).toBe(FALLBACK_API_FUNCTION);
    // Another method of a known path: that path's function, which answers 405.
    expect(apiFunctionServing('PATCH', '/payouts')).toBe('api-payouts');
    expect(apiFunctionServing('DELETE', '/dead-letters/x')).toBe('api-dead-letters');
  });

  it('the fallback ($default) answers an unknown path with the API’s 404 problem, as the local server does', async () => {
    const { docsApiHandler } = await import('../../lib/api/functions/docs.js');
    const event = (method: string, rawPath: string) =>
      ({
        rawPath,
        rawQueryString: '',
        headers: {},
        requestContext: { http: { method } },
        isBase64Encoded: false,
      }) as unknown as Parameters<ReturnType<typeof docsApiHandler>>[0];
    const answer = await docsApiHandler()(event('GET', '/no-such-route'));
    expect(answer.statusCode).toBe(404);
    expect(answer.headers?.['content-type']).toBe('application/problem+json');
    expect(JSON.parse(String(answer.body))).toMatchObject({
      status: 404,
      detail: 'no route GET /no-such-route',
    });
    expect(Object.keys(API_FUNCTIONS)).toContain(FALLBACK_API_FUNCTION);
  });
});
