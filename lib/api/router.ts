import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '../payouts/model.js';
import type { ApiContext } from './context.js';
import { ApiError } from './errors.js';
import { principalOf } from './principal.js';
import { problemFor, problemResponse } from './problem.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

/** What a route handler receives. */
export interface RouteRequest {
  readonly event: APIGatewayProxyEventV2;
  /** Path parameters by name, e.g. `{ id }` for `/payouts/{id}`. */
  readonly params: Readonly<Record<string, string>>;
  readonly principal: () => Principal;
  readonly ctx: ApiContext;
}

export interface RouteResult {
  readonly status: number;
  /** Sent as JSON, unless `text` is given. */
  readonly body: unknown;
  /** A body sent as it is (a CSV download); `headers` names its content type. */
  readonly text?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Route {
  readonly method: HttpMethod;
  /** A path template, e.g. `/payouts/{id}/cancel`. */
  readonly path: string;
  readonly handler: (request: RouteRequest) => Promise<RouteResult>;
}

interface CompiledRoute extends Route {
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const match = /^\{(\w+)\}$/.exec(segment);
      if (!match?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(match[1]);
      return '([^/]+)';
    })
    .join('/');
  return { ...route, pattern: new RegExp(`^${source}$`), names };
}

export type ApiHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * A tiny router over API Gateway HTTP API v2 events: the same function serves the Lambda and the local
 * `node:http` server. Every error becomes an RFC 9457 problem; nothing a client sends can produce a 5xx
 * unless something behind the API is broken.
 *
 * @example
 * const handle = createRouter([...payoutRoutes, ...metaRoutes], ctx);
 * const result = await handle(event);
 */
export function createRouter(routes: readonly Route[], ctx: ApiContext): ApiHandler {
  const compiled = routes.map(compile);
  return async (event) => {
    try {
      const method = event.requestContext.http.method.toUpperCase();
      const path = normalisePath(event.rawPath);
      const matches = compiled
        .map((route) => ({ route, match: route.pattern.exec(path) }))
        .filter((entry) => entry.match !== null);
      if (matches.length === 0) {
        throw new ApiError(404, 'not-found', 'Not found', `no route ${method} ${path}`);
      }
      const found = matches.find((entry) => entry.route.method === method);
      if (!found?.match) {
        const allowed = [...new Set(matches.map((entry) => entry.route.method))].join(', ');
        return withHeaders(
          problemResponse({
            ...problemFor(
              new ApiError(405, 'method-not-allowed', 'Method not allowed', `${path} allows ${allowed}`),
              ctx.logger,
            ),
          }),
          { allow: allowed },
        );
      }
      const params: Record<string, string> = {};
      found.route.names.forEach((name, index) => {
        params[name] = safeDecode(found.match?.[index + 1] ?? '');
      });
      let principal: Principal | undefined;
      const result = await found.route.handler({
        event,
        params,
        ctx,
        principal: () => {
          principal ??= principalOf(event, ctx.mode, ctx.sessionNamedRoles);
          return principal;
        },
      });
      return {
        statusCode: result.status,
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...result.headers },
        body: result.text ?? JSON.stringify(result.body),
      };
    } catch (error) {
      return problemResponse(problemFor(error, ctx.logger));
    }
  };
}

function normalisePath(rawPath: string): string {
  const path = rawPath.replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function withHeaders(
  response: APIGatewayProxyStructuredResultV2,
  headers: Record<string, string>,
): APIGatewayProxyStructuredResultV2 {
  return { ...response, headers: { ...response.headers, ...headers } };
}
