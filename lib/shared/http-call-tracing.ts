import { subscribe } from 'node:diagnostics_channel';
import type { Span } from '@opentelemetry/api';
import { logContext } from './log-context.js';
import { failSpan, SpanKinds, startSpan } from './tracing.js';

/** What undici publishes of a request on its diagnostics channels (the fields read here). */
interface UndiciRequest {
  readonly origin?: unknown;
  readonly method?: unknown;
  readonly path?: unknown;
}

let subscribed = false;

/**
 * A client span for every request sent through undici (the provider's sends go over its pool,
 * lib/provider/undici-pool.ts), child of the active span, with the payout id of the log context as an attribute:
 * undici publishes each request on `node:diagnostics_channel`, as the ADOT layer's undici instrumentation reads
 * it (which cannot see a bundled undici). Subscribed once per process; a no-op without a tracer provider.
 *
 * @example traceHttpCalls(); // in the worker's composition, before its first send
 */
export function traceHttpCalls(): void {
  if (subscribed) return;
  subscribed = true;
  const spans = new WeakMap<object, Span>();
  subscribe('undici:request:create', (message) => {
    const request = (message as { request: UndiciRequest & object }).request;
    const payoutId = logContext()?.payoutId;
    const method = String(request.method);
    const started = startSpan(`${method} provider`, {
      kind: SpanKinds.client,
      attributes: {
        'http.request.method': method,
        'server.address': String(request.origin),
        // The path only: the query could carry an account number.
        'url.path': String(request.path).split('?')[0] ?? '',
        ...(typeof payoutId === 'string' && { 'payout.id': payoutId }),
      },
    });
    if (started) spans.set(request, started.span);
  });
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    spans.get(request)?.setAttribute('http.response.status_code', response.statusCode);
  });
  subscribe('undici:request:trailers', (message) => {
    const { request } = message as { request: object };
    spans.get(request)?.end();
    spans.delete(request);
  });
  subscribe('undici:request:error', (message) => {
    const { request, error } = message as { request: object; error: unknown };
    const span = spans.get(request);
    if (!span) return;
    failSpan(span, error);
    span.end();
    spans.delete(request);
  });
}
