/**
 * The console's response headers, one definition for CloudFront's response headers policy
 * (infra/constructs/console.ts) and the local server (`npm start`), so the browser tests run under the same policy
 * as production: scripts and styles only from the console's origin, no framing, calls only to the API and the pool.
 */
export interface ConsoleOrigins {
  /** Where the console may send requests besides itself: the API, the pool's endpoints. */
  readonly connect: readonly string[];
}

export function contentSecurityPolicy(origins: ConsoleOrigins): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${origins.connect.join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** Two years, sub-domains too: the console is only ever served over TLS in AWS. */
export const HSTS_MAX_AGE_SECONDS = 63_072_000;

export function consoleSecurityHeaders(origins: ConsoleOrigins): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(origins),
    'strict-transport-security': `max-age=${HSTS_MAX_AGE_SECONDS}; includeSubDomains`,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}
