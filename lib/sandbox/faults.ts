/**
 * Injected faults for chaos tests. Faults queue in order; each request to a matching provider path consumes the
 * first matching fault once (`times` 0 = until cleared). A fault with a `probability` hits each matching request
 * with that chance, drawn from its own seeded generator so a run is reproducible; a request it spares goes on to
 * the next matching fault, or through.
 */
import { badRequest } from './errors.js';
import { isJsonObject, optionalInteger } from './validate.js';

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
  /** The chance (0 < p <= 1) that a matching request is hit; every one when absent. Not for `rate-limit`. */
  readonly probability?: number;
  /** Seed of the draws of a `probability` fault (default 1): the same seed hits the same requests in order. */
  readonly seed?: number;
}

interface QueuedFault {
  readonly spec: FaultSpec;
  remaining: number;
  /** The next draw in [0, 1) of a `probability` fault. */
  readonly draw?: () => number;
}

/**
 * mulberry32: a small seeded generator, so a random fault mode hits the same sequence of requests on every run
 * with the same seed (Math.random cannot be seeded).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultQueue {
  private queue: QueuedFault[] = [];

  add(spec: FaultSpec): void {
    this.queue.push({
      spec,
      remaining: spec.times ?? 1,
      ...(spec.probability !== undefined && { draw: seededRandom(spec.seed ?? 1) }),
    });
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
      ({ spec, draw }) =>
        (spec.path === '*' || spec.path === path) &&
        (spec.method === undefined || spec.method.toUpperCase() === method) &&
        // Drawn only for a request it matches, so the sequence of hits depends on those requests alone.
        (draw === undefined || draw() < (spec.probability ?? 1)),
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
  const { path, method, fault, probability } = body;
  if (typeof path !== 'string' || !(path === '*' || path.startsWith('/'))) {
    throw badRequest('path must be a provider path such as /wallet/transfer, or *');
  }
  if (method !== undefined && typeof method !== 'string') throw badRequest('method must be a string');
  const kind = FAULT_KINDS.find((k) => k === fault);
  if (kind === undefined) throw badRequest(`fault must be one of ${FAULT_KINDS.join(', ')}`);
  const times = optionalInteger(body, 'times', 0);
  const latencyMs = optionalInteger(body, 'latencyMs', 0);
  if (kind === 'latency' && latencyMs === undefined)
    throw badRequest('latencyMs is required for a latency fault');
  const perSecond = optionalInteger(body, 'perSecond', 1);
  if (kind === 'rate-limit' && perSecond === undefined)
    throw badRequest('perSecond is required for a rate-limit fault');
  if (
    probability !== undefined &&
    !(typeof probability === 'number' && Number.isFinite(probability) && probability > 0 && probability <= 1)
  ) {
    throw badRequest('probability must be a number > 0 and <= 1');
  }
  // A rate limiter decides by the window, not by chance: a probability on it would mean two things at once.
  if (kind === 'rate-limit' && probability !== undefined)
    throw badRequest('probability does not apply to a rate-limit fault');
  const seed = optionalInteger(body, 'seed', 0);
  if (seed !== undefined && probability === undefined) throw badRequest('seed needs a probability');
  return {
    path,
    fault: kind,
    ...(method === undefined ? {} : { method: method.toUpperCase() }),
    ...(times === undefined ? {} : { times }),
    ...(latencyMs === undefined ? {} : { latencyMs }),
    ...(perSecond === undefined ? {} : { perSecond }),
    ...(probability === undefined ? {} : { probability }),
    ...(seed === undefined ? {} : { seed }),
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
