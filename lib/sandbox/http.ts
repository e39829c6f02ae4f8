/** Thin HTTP layer: read a request into a `SandboxRequest`, write a `Reply`. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from './errors.js';

export interface SandboxRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  /** Parsed JSON body; undefined when the body was empty. */
  readonly body: unknown;
}

export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A 200 reply carrying the success envelope; `message` is omitted when undefined. */
export function ok(data: unknown, message?: string): Reply {
  return {
    status: 200,
    body: message === undefined ? { status: true, data } : { status: true, message, data },
  };
}

export function errorReply(status: number, message: string, headers?: Record<string, string>): Reply {
  return headers
    ? { status, body: { status: false, message }, headers }
    : { status, body: { status: false, message } };
}

const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the raw body (capped at 1 MiB). */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw badRequest('request body is larger than 1 MiB');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a raw body as JSON; empty means undefined; malformed JSON is 400. */
export function parseJson(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw badRequest(`request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** The request path without query and without trailing slashes (`/wallet/transfer/` is `/wallet/transfer`). */
export function pathOf(req: IncomingMessage): string {
  const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
  return pathname.replace(/(.)\/+$/, '$1');
}

export function toSandboxRequest(req: IncomingMessage, rawBody: string): SandboxRequest {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path: pathOf(req),
    query: url.searchParams,
    headers: req.headers,
    body: parseJson(rawBody),
  };
}

export function writeReply(res: ServerResponse, reply: Reply): void {
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...reply.headers,
  });
  res.end(payload);
}
