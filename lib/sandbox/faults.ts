/**
 * Injected faults for chaos tests. Faults queue in order; each request to a matching provider path consumes the
 * first matching fault once (`times` 0 = until cleared).
 */
import { badRequest } from './errors.js';
import { isJsonObject } from './validate.js';

export const FAULT_KINDS = [
  'error-500',
  'error-503',
  'error-429',
  'reset-before-commit',
  'timeout-after-commit',
  'error-500-after-commit',
  'latency',
  /** 429 (Retry-After: 1) for every request above `perSecond` in any one-second window; the rest pass. */
  'rate-limit',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  /** A provider path such as `/wallet/transfer`, or `*` for every provider path. */
  readonly path: string;
  /** Only requests with this method match; any method when absent. */
  readonly method?: string;
  readonly fault: FaultKind;
  /** How many matching requests the fault hits (default 1; 0 = every one until cleared). */
  readonly times?: number;
  /** Delay of a `latency` fault. */
  readonly latencyMs?: number;
  /** Requests a `rate-limit` fault lets through per second. */
  readonly perSecond?: number;
}

interface QueuedFault {
  readonly spec: FaultSpec;
  remaining: number;
}

export class FaultQueue {
  private queue: QueuedFault[] = [];

  add(spec: FaultSpec): void {
    this.queue.push({ spec, remaining: spec.times ?? 1 });
  }

  clear(): void {
    this.queue = [];
  }

  pending(): FaultSpec[] {
    return this.queue.map((q) => q.spec);
  }

  /** Consumes and returns the first fault matching this request, if any. */
  take(method: string, path: string): FaultSpec | undefined {
    const index = this.queue.findIndex(
      ({ spec }) =>
        (spec.path === '*' || spec.path === path) &&
        (spec.method === undefined || spec.method.toUpperCase() === method),
    );
    const hit = this.queue[index];
    if (!hit) return undefined;
    if (hit.remaining > 0) {
      hit.remaining -= 1;
      if (hit.remaining === 0) this.queue.splice(index, 1);
    }
    return hit.spec;
  }
}

/** Validates the body of `POST /__sandbox/faults` (400 on anything off). */
export function parseFaultSpec(body: unknown): FaultSpec {
  if (!isJsonObject(body)) throw badRequest('fault must be a JSON object');
  const { path, method, fault, times, latencyMs, perSecond } = body;
  if (typeof path !== 'string' || !(path === '*' || path.startsWith('/'))) {
    throw badRequest('path must be a provider path such as /wallet/transfer, or *');
  }
  if (method !== undefined && typeof method !== 'string') throw badRequest('method must be a string');
  const kind = FAULT_KINDS.find((k) => k === fault);
  if (kind === undefined) throw badRequest(`fault must be one of ${FAULT_KINDS.join(', ')}`);
  if (times !== undefined && !(typeof times === 'number' && Number.isSafeInteger(times) && times >= 0)) {
    throw badRequest('times must be an integer >= 0');
  }
  if (
    latencyMs !== undefined &&
    !(typeof latencyMs === 'number' && Number.isSafeInteger(latencyMs) && latencyMs >= 0)
  ) {
    throw badRequest('latencyMs must be an integer >= 0');
  }
  if (kind === 'latency' && latencyMs === undefined)
    throw badRequest('latencyMs is required for a latency fault');
  if (
    perSecond !== undefined &&
    !(typeof perSecond === 'number' && Number.isSafeInteger(perSecond) && perSecond >= 1)
  ) {
    throw badRequest('perSecond must be an integer >= 1');
  }
  if (kind === 'rate-limit' && perSecond === undefined)
    throw badRequest('perSecond is required for a rate-limit fault');
  return {
    path,
    fault: kind,
    ...(method === undefined ? {} : { method: method.toUpperCase() }),
    ...(times === undefined ? {} : { times }),
    ...(latencyMs === undefined ? {} : { latencyMs }),
    ...(perSecond === undefined ? {} : { perSecond }),
  };
}

/**
 * The sliding one-second window of a `rate-limit` fault: admits a request when fewer than `perSecond` were
 * admitted in the last second, as a provider's rate limiter does.
 */
export class RateWindow {
  readonly #admitted: number[] = [];

  admit(nowMs: number, perSecond: number): boolean {
    while (this.#admitted.length > 0 && (this.#admitted[0] as number) <= nowMs - 1000) this.#admitted.shift();
    if (this.#admitted.length >= perSecond) return false;
    this.#admitted.push(nowMs);
    return true;
  }
}
