import type * as z from 'zod/mini';
import { signalWithDeadline } from '../shared/deadline.js';
import { classifyFailure } from './classify.js';
import type { CredentialsSource } from './credentials.js';
import {
  type HttpMethod,
  type ProviderErrorOptions,
  ProviderMalformedResponseError,
  ProviderUnavailableError,
  UnavailableReason,
} from './errors.js';
import type { Failure } from './failure.js';
import { parseWith } from './parse.js';
import { withoutSecrets } from './redact.js';
import { decideRetry, parseRetryAfterMs, type RetryPolicy } from './retry.js';
import { errorBody } from './schemas/envelope.js';
import { type Transport, TransportError, type TransportResponse } from './transport.js';
import type { Logger, RequestOptions } from './types.js';

export type Query = Record<string, string | number | undefined>;

/** One call as a resource describes it. */
export type CallSpec<S extends z.ZodMiniType> = {
  method: HttpMethod;
  path: string;
  query?: Query;
  body?: Record<string, unknown>;
  /** Adds `pin` from the credentials source to the body; only such calls ever ask for the PIN. */
  withPin?: boolean;
  /** Schema of the whole success envelope. */
  schema: S;
};

export type RequesterOptions = {
  transport: Transport;
  credentials: CredentialsSource;
  retry: RetryPolicy;
  /** The deadline of each attempt, and of one whole call (retries, waits, credential reads) unless told. */
  defaultTimeoutMs: number;
  logger: Logger | undefined;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
};

/** What one call sends: the token always, the PIN only on a call that carries it. */
type CallCredentials = { token: string; pin?: string };

type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; failure: Failure; cause?: TransportError };

/**
 * The request layer under the resources: credentials, the 401 refresh, retries, parsing and error mapping.
 * Every error it throws is a `ProviderError` whose text has lost the token and PIN (see withoutSecrets: never a substring, never a search for the PIN's value).
 */
export class Requester {
  readonly #options: RequesterOptions;

  constructor(options: RequesterOptions) {
    this.#options = options;
  }

  /**
   * One call, bounded as a whole: its signal aborts at `deadlineMs` (`defaultTimeoutMs` by default),
   * which ends the attempt in flight, the wait before a retry and a credential read alike, so no retry, 401
   * refresh or slow secret read can make a call outlast its deadline.
   */
  async call<S extends z.ZodMiniType>(
    spec: CallSpec<S>,
    callOptions: RequestOptions = {},
  ): Promise<z.output<S>> {
    // Its reason is a TimeoutError: the transport reads an abort by it as a timeout, not a caller's abort.
    const signal = signalWithDeadline(
      callOptions.deadlineMs ?? this.#options.defaultTimeoutMs,
      callOptions.signal,
    );
    const options = { ...callOptions, signal };
    const { retry, logger } = this.#options;
    const path = withQuery(spec.path, spec.query);
    // What every error and log line of the call names it by.
    const context: ProviderErrorOptions = { method: spec.method, path: spec.path };
    // Every token used so far: a message may echo the one of an earlier attempt.
    const seen: string[] = [];
    let credentials = await this.#credentials(spec.withPin === true, false, context, options.signal);
    seen.push(credentials.token);
    let refreshed = false;
    let attempt = 0;
    for (;;) {
      attempt += 1;
      throwIfAborted(options.signal, { ...context, attempts: attempt - 1 });
      const outcome = await this.#attempt(spec, path, credentials, options, seen, attempt);
      if (outcome.ok) return outcome.value;
      const { failure } = outcome;
      if (failure.type === 'http' && failure.status === 401 && !refreshed) {
        // A 401 changed nothing: refresh the credentials once and repeat once.
        refreshed = true;
        logger?.warn('provider answered 401; refreshing credentials', { ...context });
        credentials = await this.#credentials(spec.withPin === true, true, context, options.signal);
        seen.push(credentials.token);
        attempt -= 1;
        continue;
      }
      const decision = decideRetry(spec.method, failure, attempt, retry, this.#options.random);
      if (!decision.retry) {
        const error = classifyFailure(spec.method, failure, {
          ...context,
          attempts: attempt,
          ...(outcome.cause ? { cause: outcome.cause } : {}),
        });
        logger?.warn('provider call failed', { ...context, attempts: attempt, code: error.code });
        throw error;
      }
      logger?.info('retrying provider call', {
        ...context,
        attempt,
        delayMs: decision.delayMs,
        failure: failure.type === 'http' ? failure.status : failure.kind,
      });
      if (decision.delayMs > 0) await this.#options.sleep(decision.delayMs, options.signal);
    }
  }

  async #attempt<S extends z.ZodMiniType>(
    spec: CallSpec<S>,
    path: string,
    credentials: CallCredentials,
    options: RequestOptions,
    seen: readonly string[],
    attempt: number,
  ): Promise<AttemptOutcome<z.output<S>>> {
    const body = credentials.pin === undefined ? (spec.body ?? {}) : { ...spec.body, pin: credentials.pin };
    const started = this.#options.now();
    let response: TransportResponse;
    try {
      response = await this.#options.transport.request({
        method: spec.method,
        path,
        headers: {
          authorization: `Bearer ${credentials.token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        // The provider's GETs carry an empty JSON object as body.
        body: JSON.stringify(body),
        timeoutMs: options.timeoutMs ?? this.#options.defaultTimeoutMs,
        signal: options.signal,
      });
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      this.#options.logger?.debug('provider attempt failed', {
        method: spec.method,
        path,
        attempt,
        kind: error.kind,
      });
      const detail = withoutSecrets(error.message, seen);
      const cause = new TransportError(error.kind, error.phase, detail);
      return { ok: false, failure: { type: 'network', kind: error.kind, phase: error.phase, detail }, cause };
    }
    this.#options.logger?.debug('provider answered', {
      method: spec.method,
      path,
      attempt,
      status: response.status,
      durationMs: this.#options.now() - started,
    });
    if (response.status !== 200) return { ok: false, failure: this.#httpFailure(response, seen) };
    const context = { method: spec.method, path: spec.path, attempts: attempt, status: response.status };
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      throw new ProviderMalformedResponseError([{ path: '(body)', message: 'expected JSON' }], context);
    }
    const parsed = parseWith(spec.schema, json);
    // Issue paths and messages come from the schema (keys, indexes, expected types), never from values.
    if (!parsed.ok) throw new ProviderMalformedResponseError(parsed.issues, context);
    return { ok: true, value: parsed.value };
  }

  #httpFailure(response: TransportResponse, seen: readonly string[]): Failure {
    let providerMessage: string | undefined;
    try {
      const parsed = parseWith(errorBody, JSON.parse(response.body));
      if (parsed.ok && parsed.value.message !== undefined)
        providerMessage = withoutSecrets(parsed.value.message, seen);
    } catch {
      providerMessage = undefined;
    }
    const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], this.#options.now());
    return {
      type: 'http',
      status: response.status,
      ...(providerMessage === undefined ? {} : { providerMessage }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }

  /**
   * The token, and the PIN when the call carries one. A failure to read them means nothing was sent: the
   * call is unavailable (retried later), never an unknown outcome.
   */
  async #credentials(
    withPin: boolean,
    forceRefresh: boolean,
    context: ProviderErrorOptions,
    signal: AbortSignal,
  ): Promise<CallCredentials> {
    const source = this.#options.credentials;
    const read = forceRefresh ? { forceRefresh: true } : undefined;
    try {
      // A credentials source takes no signal of its own: its read races the call's deadline.
      const [token, pin] = await Promise.race([
        Promise.all([source.token(read), withPin ? source.pin(read) : undefined]),
        new Promise<never>((_resolve, reject) => {
          signal.onabort = () => reject(signal.reason);
        }),
      ]).finally(() => {
        // Let go of the race once read, as lib/shared/dynamodb-client.ts does: the signal lives to the deadline.
        signal.onabort = null;
      });
      return pin === undefined ? { token } : { token, pin };
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
      throw new ProviderUnavailableError(UnavailableReason.Credentials, {
        ...context,
        detail: `cannot obtain provider credentials (${detail})`,
      });
    }
  }
}

function throwIfAborted(signal: AbortSignal | undefined, context: ProviderErrorOptions): void {
  if (signal?.aborted)
    throw new ProviderUnavailableError(UnavailableReason.Aborted, {
      ...context,
      detail: 'aborted before sending',
    });
}

function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) search.set(key, String(value));
  }
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}
