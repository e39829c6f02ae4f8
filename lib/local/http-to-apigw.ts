import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type ProblemSlug, problemType } from '../api/index.js';
import type { LocalSite } from './console-site.js';
import { authorizeLocally, LOCAL_SIGN_IN_PATH, type LocalIdentity } from './gateway-authorizer.js';
import { type LocalRefusal, refusalOf } from './loopback-guard.js';
import { readBoundedBody } from './request-body.js';

/**
 * The bodies the ops API reads (JSON, and the CSV upload of bulk corrections); a command without one is refused
 * locally (loopback-guard.ts). Neither is a type a web page can send cross-site without a CORS preflight.
 */
const API_CONTENT_TYPES = ['application/json', 'text/csv'] as const;

/** Bodies above this are refused with 413 before they reach the handler (API Gateway's own limit is 10 MB). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Converts a node:http request into the API Gateway HTTP API v2 event the Lambda would receive, so local
 * requests go through exactly the same router. Header names are lower-cased, as API Gateway does.
 */
export function toApiGatewayEvent(req: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const now = new Date();
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 && { body: body.toString('utf8') }),
    isBase64Encoded: false,
  };
}

/** Writes a structured v2 result as API Gateway would. */
export function writeResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const body = result.body ?? '';
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  res.writeHead(result.statusCode ?? 200, {
    ...headers,
    'content-length': String(Buffer.byteLength(body, result.isBase64Encoded ? 'base64' : 'utf8')),
  });
  res.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

const problem = (
  status: number,
  slug: ProblemSlug,
  title: string,
  detail: string,
): APIGatewayProxyStructuredResultV2 => ({
  statusCode: status,
  headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store' },
  body: JSON.stringify({ type: problemType(slug), title, status, detail }),
});

/** Each refusal's documented problem type (lib/api/problem-types.ts). */
const REFUSAL_PROBLEMS = {
  NON_LOOPBACK_HOST: 'non-loopback-host',
  CROSS_SITE_REQUEST: 'cross-site-request',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported-media-type',
} as const satisfies Record<LocalRefusal['code'], ProblemSlug>;

const REFUSAL_TITLES = {
  NON_LOOPBACK_HOST: 'Misdirected request',
  CROSS_SITE_REQUEST: 'Cross-site request refused',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
} as const;

export interface LocalApiServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves an API Gateway v2 handler over node:http on 127.0.0.1 (the local stand-in for API Gateway). Only
 * requests a local client makes are served: a loopback Host, no foreign Origin, and JSON for every command
 * (`refusalOf`), so a web page the operator has open cannot pause, resume or pay.
 *
 * @example
 * const server = await serveApiGatewayHandler(handler, { port: 3000 });
 * // curl http://127.0.0.1:3000/health
 * await server.close();
 */
export async function serveApiGatewayHandler(
  handler: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>,
  options: {
    port: number;
    onError?: (error: unknown) => void;
    /** Verify the callers' tokens as API Gateway's JWT authorizer would (`npm start`); unset: no authorizer. */
    identity?: LocalIdentity;
    /** A static site served before the API on the same origin (the console at /console/, console-site.ts). */
    site?: LocalSite;
  },
): Promise<LocalApiServer> {
  let port = options.port;
  const listener: RequestListener = (req, res) => {
    void (async () => {
      const refusal = refusalOf(req.method ?? 'GET', req.headers, port, API_CONTENT_TYPES);
      if (refusal) {
        writeResult(
          res,
          problem(
            refusal.status,
            REFUSAL_PROBLEMS[refusal.code],
            REFUSAL_TITLES[refusal.code],
            refusal.message,
          ),
        );
        return;
      }
      const page = options.site?.(req.method ?? 'GET', new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
      if (page) {
        writeResult(res, page);
        return;
      }
      const body = await readBoundedBody(req, MAX_BODY_BYTES);
      if (body === undefined) {
        writeResult(
          res,
          problem(
            413,
            'payload-too-large',
            'Payload too large',
            `the body must be at most ${MAX_BODY_BYTES} bytes`,
          ),
        );
        return;
      }
      const event = toApiGatewayEvent(req, body);
      if (
        options.identity &&
        event.rawPath === LOCAL_SIGN_IN_PATH &&
        event.requestContext.http.method === 'GET'
      ) {
        writeResult(res, {
          statusCode: 200,
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
          body: JSON.stringify(options.identity.signIn),
        });
        return;
      }
      const authorized = options.identity ? await authorizeLocally(event, options.identity) : event;
      if ('refused' in authorized) {
        writeResult(res, problem(401, 'unauthenticated', 'The caller is not identified', authorized.refused));
        return;
      }
      writeResult(res, await handler(authorized));
    })().catch((error: unknown) => {
      options.onError?.(error);
      if (!res.headersSent)
        writeResult(res, problem(500, 'internal', 'Internal error', 'the local server failed'));
      else res.destroy();
    });
  };
  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
