import { signalWithDeadline } from '../shared/deadline.js';
import type { HttpMethod } from './errors.js';
import type { NetworkErrorKind, Phase } from './failure.js';

/** One HTTP exchange as the client asks for it. `path` is relative to the base URL and includes the query. */
export type TransportRequest = {
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Deadline for the whole exchange (connect, send, headers and body). */
  timeoutMs: number | undefined;
  signal: AbortSignal | undefined;
};

export type TransportResponse = {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  body: string;
};

/**
 * The seam under the client: the default is undici over HTTP; tests and benchmarks may swap it.
 * A transport answers every HTTP status as a response and throws `TransportError` for network failures.
 */
export interface Transport {
  request(request: TransportRequest): Promise<TransportResponse>;
  /**
   * Gets ready for a request that is likely soon (e.g. loads the HTTP client's code), sending nothing. It never
   * rejects: whatever failed here fails again, and is reported, on the request itself.
   */
  prepare?(): Promise<void>;
  close(): Promise<void>;
}

/** A network failure, with what the transport knows about whether bytes were sent. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  readonly code = 'PROVIDER_TRANSPORT';
  readonly kind: NetworkErrorKind;
  readonly phase: Phase;

  constructor(kind: NetworkErrorKind, phase: Phase, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    this.phase = phase;
  }
}

/** The signal one exchange runs under: its own deadline (`timeoutMs`) and the caller's signal, whichever ends first. */
export function exchangeSignal(request: TransportRequest): AbortSignal {
  if (request.timeoutMs !== undefined) return signalWithDeadline(request.timeoutMs, request.signal);
  return AbortSignal.any(request.signal ? [request.signal] : []);
}

/** Response headers as a transport answers them: names in lower case, a repeated header's values joined. */
export function flatHeaders(
  raw: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** A base URL as a transport uses it: the origin it connects to, and the path every request goes under. */
export function originAndBasePath(baseUrl: string): { readonly origin: string; readonly basePath: string } {
  const url = new URL(baseUrl);
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}
