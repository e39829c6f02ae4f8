import type { IncomingHttpHeaders } from 'node:http';

/** Why a local request is refused before it reaches a handler. */
export interface LocalRefusal {
  readonly status: 403 | 415 | 421;
  /** Stable, for the answer's type (`__type` on the bus, the problem's slug on the API). */
  readonly code: 'CROSS_SITE_REQUEST' | 'UNSUPPORTED_MEDIA_TYPE' | 'NON_LOOPBACK_HOST';
  readonly message: string;
}

/** Methods that carry no command: no body, no content type required. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `127.0.0.1:<port>`, `localhost:<port>` and `[::1]:<port>`: the names a loopback listener is reached by. */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/**
 * The local servers (`npm start`'s ops API and event bus) listen on 127.0.0.1, but a web page the operator
 * opens can still reach them: a `text/plain` form post needs no CORS preflight, and DNS rebinding lets a page
 * send requests with its own host name. So every request must
 * - name a loopback Host with the listener's port (a rebound name is refused);
 * - carry no Origin, or the listener's own loopback origin (a page elsewhere is refused), and no
 *   `Sec-Fetch-Site` other than `same-origin` or `none`;
 * - if it is a command (any method but GET, HEAD, OPTIONS), say it is JSON with one of `contentTypes`, which
 *   a browser cannot send cross-site without a preflight this server never answers.
 *
 * @example
 * const refusal = refusalOf(req.method ?? 'GET', req.headers, 3000, ['application/json']);
 * if (refusal) return reply(refusal.status, refusal.message);
 */
export function refusalOf(
  method: string,
  headers: IncomingHttpHeaders,
  port: number,
  contentTypes: readonly string[],
): LocalRefusal | undefined {
  const hosts = loopbackHosts(port);
  const host = headers.host?.trim().toLowerCase();
  if (host === undefined || !hosts.includes(host)) {
    return {
      status: 421,
      code: 'NON_LOOPBACK_HOST',
      message: `the Host header must be one of ${hosts.join(', ')}`,
    };
  }
  const origin = headers.origin?.trim().toLowerCase();
  if (origin !== undefined && origin !== `http://${host}`) {
    return {
      status: 403,
      code: 'CROSS_SITE_REQUEST',
      message: `cross-site requests are refused: Origin must be absent or http://${host}`,
    };
  }
  const fetchSite = headers['sec-fetch-site']?.trim().toLowerCase();
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') {
    return {
      status: 403,
      code: 'CROSS_SITE_REQUEST',
      message: `cross-site requests are refused (Sec-Fetch-Site: ${fetchSite})`,
    };
  }
  if (!SAFE_METHODS.has(method.toUpperCase())) {
    const mediaType = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (mediaType === undefined || !contentTypes.includes(mediaType)) {
      return {
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: `Content-Type must be ${contentTypes.join(' or ')}${mediaType ? `, not ${mediaType}` : ''}`,
      };
    }
  }
  return undefined;
}
