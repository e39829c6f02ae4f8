import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  Attributes,
  Context,
  ContextManager,
  Span,
  SpanContext,
  SpanKind,
  TracerProvider,
} from '@opentelemetry/api';

/**
 * OpenTelemetry spans through the API's global registration, without bundling `@opentelemetry/api` itself
 * (8-10 KB minified, more than three bundles have left: docs/operations.md, "Traces"). A tracer provider
 * registered through the API (`trace.setGlobalTracerProvider`: the ADOT layer in Lambda, the in-memory exporter
 * in tests) lives under the API's own global key, which this reads; with none registered every span here is a
 * no-op that costs one property read. The types are the API's, so a span here is the API's `Span`.
 */
const API_KEY = Symbol.for('opentelemetry.js.api.1');
/** The key the API's `trace.setSpan` stores the active span under (`createContextKey` is `Symbol.for`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

interface Registered {
  readonly trace?: TracerProvider;
  readonly context?: ContextManager;
}

export const SpanKinds = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 } as const;

/** An immutable context, as the API's root context is: used when no context manager is registered. */
class ValueContext implements Context {
  constructor(readonly values: ReadonlyMap<symbol, unknown> = new Map()) {}
  getValue(key: symbol): unknown {
    return this.values.get(key);
  }
  setValue(key: symbol, value: unknown): Context {
    return new ValueContext(new Map(this.values).set(key, value));
  }
  deleteValue(key: symbol): Context {
    const values = new Map(this.values);
    values.delete(key);
    return new ValueContext(values);
  }
}

/** The active context of this process's spans: the invocation's, then the request's or the payout's. */
const active = new AsyncLocalStorage<Context>();

const registered = (): Registered | undefined => (globalThis as { [API_KEY]?: Registered })[API_KEY];

/** A W3C `traceparent` of version 00: trace id, parent span id, flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The X-Ray trace header of a W3C `traceparent`, for what takes X-Ray's form (EventBridge's `TraceHeader`): the
 * same trace, its first 8 hex digits as the epoch part of X-Ray's id (`Root=1-<8>-<24>`), the same parent and
 * sampled flag, as the ADOT and X-Ray documentation convert them. Undefined for anything else.
 */
export function xrayTraceHeaderOf(traceparent: string | undefined): string | undefined {
  const parts = TRACEPARENT.exec(traceparent ?? '');
  if (!parts) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = parts;
  const sampled = Number.parseInt(flags, 16) & 1;
  return `Root=1-${traceId.slice(0, 8)}-${traceId.slice(8)};Parent=${spanId};Sampled=${sampled}`;
}

/** The span a W3C `traceparent` names, as the parent of a span started here (the queue's hand-off). */
function remoteParent(traceparent: string | undefined): Context | undefined {
  const parts = TRACEPARENT.exec(traceparent ?? '');
  if (!parts) return undefined;
  const context: SpanContext = {
    traceId: parts[1] ?? '',
    spanId: parts[2] ?? '',
    traceFlags: Number.parseInt(parts[3] ?? '0', 16),
    isRemote: true,
  };
  // What a tracer reads of its parent is its span context (the API's NonRecordingSpan holds nothing else).
  return new ValueContext().setValue(SPAN_KEY, { spanContext: () => context });
}

export interface SpanOptions {
  readonly kind?: (typeof SpanKinds)[keyof typeof SpanKinds];
  readonly attributes?: Attributes;
  /** A W3C traceparent to continue (a message's); the active span otherwise. */
  readonly traceparent?: string;
}

/**
 * Runs `body` in a new span, child of `options.traceparent` or of the active span, and ends it when `body`
 * settles (an error marks it failed). Without a registered tracer provider, runs `body` alone.
 *
 * @example await inSpan('submit payout', { kind: SpanKinds.consumer, attributes: { 'payout.id': id } }, send);
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  body: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const started = startSpan(name, options);
  if (!started) return body(undefined);
  const { span, context } = started;
  const run = () =>
    active.run(context, async () => {
      try {
        return await body(span);
      } catch (error) {
        failSpan(span, error);
        throw error;
      } finally {
        span.end();
      }
    });
  // A registered context manager (the ADOT layer's) sees the span too, for the calls its instrumentations trace.
  const manager = registered()?.context;
  return manager ? manager.with(context, run) : run();
}

/**
 * Starts a span the caller ends (an HTTP call seen through diagnostics channels), child of
 * `options.traceparent` or of the active span; undefined without a registered tracer provider.
 */
export function startSpan(name: string, options: SpanOptions): { span: Span; context: Context } | undefined {
  const provider = registered()?.trace;
  if (!provider) return undefined;
  const parent =
    remoteParent(options.traceparent) ??
    active.getStore() ??
    registered()?.context?.active() ??
    new ValueContext();
  const span = provider.getTracer('payouts').startSpan(
    name,
    {
      kind: (options.kind ?? SpanKinds.internal) as SpanKind,
      ...(options.attributes && { attributes: options.attributes }),
    },
    parent,
  );
  return { span, context: parent.setValue(SPAN_KEY, span) };
}

/** Marks `span` failed (status ERROR) with the error's message. */
export function failSpan(span: Span, error: unknown): void {
  span.setStatus({ code: 2, message: error instanceof Error ? error.message : String(error) });
}

/** The active span, if any (undefined without a tracer provider). */
export const activeSpan = (): Span | undefined => active.getStore()?.getValue(SPAN_KEY) as Span | undefined;

/** The active span as a W3C `traceparent` (`00-<trace>-<span>-<flags>`), for a message or a record to carry. */
export function activeTraceparent(): string | undefined {
  const context = activeSpan()?.spanContext();
  if (!context) return undefined;
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 1) === 1 ? '01' : '00'}`;
}
