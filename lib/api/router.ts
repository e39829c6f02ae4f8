import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '../controls/index.js';
import type { OperatorRole } from '../operators/index.js';
import { CorrelationIdSchema, newCorrelationId } from '../shared/correlation.js';
import { DeadlineExceededError, withinDeadline } from '../shared/deadline.js';
import { withLogContext } from '../shared/log-context.js';
import { activeSpan, inSpan, SpanKinds } from '../shared/tracing.js';
import type * as z from '../shared/zod.js';
import { ApiError, unauthenticated, validationError } from './errors.js';
import { operatorOf } from './principal.js';
import { problemFor, problemResponse } from './problem.js';
import type { ProblemSlug } from './problem-types.js';
import { API_DEADLINES, type RequestDeadline } from './request-deadline.js';
import type { ApiContext, ApiService } from './services.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

/** What a route handler receives; `S` are the services it uses (every one unless it says). */
export interface RouteRequest<S extends ApiService = ApiService> {
  readonly event: APIGatewayProxyEventV2;
  /** Path parameters by name, e.g. `{ id }` for `/payouts/{id}`. */
  readonly params: Readonly<Record<string, string>>;
  readonly principal: () => Principal;
  readonly ctx: ApiContext<S>;
  /** When the API answers whatever happens; an inline send must fit its `sendWindow`. */
  readonly deadline: RequestDeadline;
  /** The request's `X-Correlation-Id` (validated), or one generated for it: answered, logged, stored. */
  readonly correlationId: string;
}

export interface RouteResult {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One answer a route gives: what it means and the schema its body satisfies. */
export interface JsonAnswer<S extends z.ZodMiniType = z.ZodMiniType> {
  readonly description: string;
  readonly schema: S;
  /**
   * The answer's media type when it is not JSON (a CSV download): the body, a string, is then sent as it is,
   * as `<mediaType>; charset=utf-8`.
   */
  readonly mediaType?: 'text/csv';
}

/** A route's JSON answers by HTTP status (errors are problems, declared apart). */
export type Answers = { readonly [status: number]: JsonAnswer };

/** What a handler may return: one of its declared statuses, with a body of that status's schema. */
export type RouteResultOf<A extends Answers> = {
  [K in keyof A & number]: {
    readonly status: K;
    readonly body: z.output<A[K]['schema']>;
    readonly headers?: Readonly<Record<string, string>>;
  };
}[keyof A & number];

/**
 * A handler's answer. `status` keeps its literal type, so the route can check the body against the schema it
 * declared for that status.
 *
 * @example return reply(201, presentPayout(payout), { location: `/payouts/${payout.id}` });
 */
export function reply<const S extends number, B>(
  status: S,
  body: B,
  headers?: Readonly<Record<string, string>>,
): { readonly status: S; readonly body: B; readonly headers?: Readonly<Record<string, string>> } {
  return { status, body, ...(headers && { headers }) };
}

/**
 * What a route takes besides its handler's code: the OpenAPI document's parameters and request body are generated
 * from it (lib/api/openapi.ts), and the CLI's flags follow it (`--key`, `--body`, `--csv`).
 */
export interface RouteInput {
  /** The schema of each `{name}` of the path; every one the path names. */
  readonly params?: Readonly<Record<string, z.ZodMiniType>>;
  /** The query string: a strict object schema, each property one query parameter. */
  readonly query?: z.ZodMiniType;
  /** The JSON body; `required: false` when it may be left out. */
  readonly body?: {
    readonly schema: z.ZodMiniType;
    readonly required?: false;
    /** The route takes a `text/csv` upload as well, of this (string) schema. */
    readonly csv?: z.ZodMiniType;
  };
  /** The `Idempotency-Key` header: `required` (a create pays once per key) or `optional`. */
  readonly idempotencyKey?: 'required' | 'optional';
}

/**
 * The route as a command of the operators' CLI (lib/cli/command-table.ts): its words and flags. The method, path,
 * `--body`, `--key` and `--csv` follow from the route itself.
 */
export interface RouteCommand {
  readonly words: readonly [string, string];
  /** The line `payouts --help` prints; the route's `summary` when left out. */
  readonly summary?: string;
  /** A list route: `--all` walks every page. */
  readonly list?: true;
  /** Query flags passed through (`--status needs_review`). */
  readonly query?: readonly string[];
  /** Flags that become body fields when no `--body` is given (`--reason "…"`). */
  readonly bodyFlags?: readonly string[];
  /** Those of `bodyFlags` sent as a list, comma-separated on the command line (`--groups requester,approver`). */
  readonly listFlags?: readonly string[];
  /** A decision on money someone else asked for: shown from this route first, confirmed unless `--yes`. */
  readonly confirmFrom?: string;
  /** Other words naming the same command (`runs show` for `payout-runs get`). */
  readonly aliases?: readonly (readonly [string, string])[];
  /** `--watch` redraws a one-line progress bar until the resource ends. */
  readonly watch?: true;
  /** A CSV download in parts: the CLI follows each part's `Link` and prints (or `--out`s) one file. */
  readonly parts?: true;
}

/**
 * A route; `S` are the services its handler uses, so a function serving it knows what to build. It is the one
 * definition of its operation: the router serves it, lib/api/openapi.ts documents it, the CLI names it. What only
 * the document and the CLI read (`operationId`, `summary`, `description`, `request`, `cli`) is left out of the
 * Lambda bundles (infra/bundling/route-docs.ts): the router and the handlers must never read them.
 */
export interface Route<A extends Answers = Answers, S extends ApiService = ApiService> {
  readonly method: HttpMethod;
  /** A path template, e.g. `/payouts/{id}/cancel`. */
  readonly path: string;
  /** The OpenAPI operationId, unique in the API; its example is keyed by it (lib/api/openapi-examples.json). */
  readonly operationId: string;
  readonly summary?: string;
  readonly description?: string;
  readonly request?: RouteInput;
  readonly cli: RouteCommand;
  /** Every JSON answer by status; the OpenAPI document is generated from these schemas. */
  readonly responses: A;
  /**
   * The problem types the route can answer (lib/api/problem-types.ts). `internal` (500) is implied; the
   * API tests fail on a problem the route does not declare.
   */
  readonly problems: readonly ProblemSlug[];
  /** The role a caller must hold (lib/operators/roles.ts): checked by the router before the handler runs. */
  readonly role: OperatorRole;
  /**
   * The route reads no stored data (the OpenAPI document): its function (api-docs) builds no runtime and reaches no
   * table, so a disabled operator is not looked up for it, in AWS or in the one local router.
   */
  readonly storesNothing?: true;
  readonly handler: (request: RouteRequest<S>) => Promise<RouteResultOf<A>>;
}

/**
 * Declares a route: the handler's answers are type-checked against `responses`, so the code and the
 * document generated from them cannot differ on a status or a body's shape. The services it uses come from its
 * handler's `RouteRequest<S>`.
 */
export function route<const A extends Answers, S extends ApiService = ApiService>(
  definition: Route<A, S>,
): Route<Answers, S> {
  return definition as unknown as Route<Answers, S>;
}

interface CompiledRoute<S extends ApiService> extends Route<Answers, S> {
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

/**
 * Routes with the fewest path parameters first, in their order otherwise: a path two templates match is served
 * by the more literal one, as API Gateway chooses (`/payouts/export.csv` before `/payouts/{id}`).
 */
export function mostSpecificFirst<T extends { readonly path: string }>(routes: readonly T[]): T[] {
  const parameters = (template: string) => template.split('{').length - 1;
  return [...routes].sort((a, b) => parameters(a.path) - parameters(b.path));
}

/**
 * A path template's pattern and parameter names: `/payouts/{id}` matches `/payouts/01J…` with `id`. API Gateway
 * matches `{name}` to one segment the same way.
 */
export function pathPattern(template: string): {
  readonly pattern: RegExp;
  readonly names: readonly string[];
} {
  const names: string[] = [];
  const source = template
    .split('/')
    .map((segment) => {
      const match = /^\{(\w+)\}$/.exec(segment);
      if (!match?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(match[1]);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), names };
}

function compile<S extends ApiService>(route: Route<Answers, S>): CompiledRoute<S> {
  return { ...route, ...pathPattern(route.path) };
}

/** What the invocation tells the API: the time it has left (Lambda's `getRemainingTimeInMillis()`). */
export interface Invocation {
  readonly remainingMs?: number;
}

export type ApiHandler = (
  event: APIGatewayProxyEventV2,
  invocation?: Invocation,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * A tiny router over API Gateway HTTP API v2 events: the same function serves the Lambda and the local
 * `node:http` server. Every error becomes an RFC 9457 problem; nothing a client sends can produce a 5xx
 * unless something behind the API is broken. Every route runs under the request's deadline
 * (request-deadline.ts): past it the API answers `503 request-deadline` itself, before API Gateway's 504.
 *
 * @example
 * const handle = createRouter([...payoutRoutes, ...metaRoutes], ctx);
 * const result = await handle(event);
 */
export function createRouter<S extends ApiService>(
  routes: readonly Route<Answers, S>[],
  ctx: ApiContext<S>,
): ApiHandler {
  const compiled = mostSpecificFirst(routes).map(compile);
  const deadlines = ctx.deadlines ?? API_DEADLINES;
  const handle = async (
    event: APIGatewayProxyEventV2,
    invocation: Invocation,
    correlationId: string,
  ): Promise<APIGatewayProxyStructuredResultV2> => {
    // The invocation's time left (Lambda's getRemainingTimeInMillis(); the Lambda's budget locally) less the margin.
    const at = Date.now() + (invocation.remainingMs ?? deadlines.localBudgetMs) - deadlines.marginMs;
    const deadline: RequestDeadline = {
      at,
      sendWindow: { sendBy: at - deadlines.sendBeforeDeadlineMs, deadlineMs: deadlines.sendDeadlineMs },
    };
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
      activeSpan()?.updateName(`${method} ${found.route.path}`);
      const params: Record<string, string> = {};
      found.route.names.forEach((name, index) => {
        params[name] = safeDecode(found.match?.[index + 1] ?? '');
      });
      const operator = operatorOf(event, ctx.mode, ctx);
      // An operator an admin disabled holds tokens (and identity-pool credentials) that stay valid until they
      // expire: refused here from the moment of the disable (lib/operators/access.ts).
      if (
        !found.route.storesNothing &&
        ctx.disabledOperators &&
        (await ctx.disabledOperators.isDisabled(operator.principal))
      ) {
        throw unauthenticated('this operator is disabled; an admin can enable them again');
      }
      if (!operator.roles.has(found.route.role)) {
        throw new ApiError(
          403,
          'forbidden',
          'Role required',
          `${method} ${found.route.path} needs the ${found.route.role} role, which the caller does not hold`,
        );
      }
      // Past the deadline the route is abandoned, not stopped: what it does later is safe to repeat (idempotent
      // creates, claims under a lease, no send after its window).
      const result = await withinDeadline(Math.max(0, at - Date.now()), () =>
        found.route.handler({
          event,
          params,
          ctx,
          deadline,
          correlationId,
          principal: () => operator.principal,
        }),
      );
      const mediaType = found.route.responses[result.status]?.mediaType;
      return {
        statusCode: result.status,
        headers: {
          'content-type': mediaType ? `${mediaType}; charset=utf-8` : 'application/json',
          'cache-control': 'no-store',
          ...result.headers,
        },
        body: mediaType ? String(result.body) : JSON.stringify(result.body),
      };
    } catch (error) {
      const late = error instanceof DeadlineExceededError;
      const answer = problemResponse(
        problemFor(
          late
            ? new ApiError(
                503,
                'request-deadline',
                'Deadline passed',
                'the request may have completed: send it again (with the same Idempotency-Key where the route takes one)',
              )
            : error,
          ctx.logger,
        ),
      );
      // Retry-After: long enough for a container that is not frozen to finish what the request started.
      return late ? withHeaders(answer, { 'retry-after': '5' }) : answer;
    }
  };
  return (event, invocation = {}) => {
    // A bad X-Correlation-Id is the caller's 400, answered under a fresh id (nothing else runs).
    const header = event.headers?.['x-correlation-id'];
    const given = header === undefined ? undefined : CorrelationIdSchema.safeParse(header);
    const correlationId = given?.success ? given.data : newCorrelationId();
    const method = event.requestContext.http.method.toUpperCase();
    return withLogContext({ correlationId }, () =>
      inSpan(
        `${method} ${event.rawPath}`,
        {
          kind: SpanKinds.server,
          attributes: {
            'http.request.method': method,
            'url.path': event.rawPath,
            'correlation.id': correlationId,
          },
        },
        async (span) => {
          const answer =
            given === undefined || given.success
              ? await handle(event, invocation, correlationId)
              : problemResponse(
                  problemFor(
                    validationError(
                      given.error.issues.map((issue) => ({
                        path: 'X-Correlation-Id',
                        message: issue.message,
                      })),
                    ),
                    ctx.logger,
                  ),
                );
          span?.setAttribute('http.response.status_code', answer.statusCode ?? 0);
          return withHeaders(answer, { 'x-correlation-id': correlationId });
        },
      ),
    );
  };
}

/** The path as routed: without trailing slashes, `/` for none. */
export function normalisePath(rawPath: string): string {
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
