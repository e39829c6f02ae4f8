import { abortableSleep } from './abortable-sleep.js';
import { parseRetryAfterMs } from './retry.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';

/**
 * The fleet's share of the provider's rate limit, as a transport asks for it: the workers' pacer
 * (`ProviderRateLimiter`) has this shape, so whatever is paced by it counts against one limit with the sends.
 */
export interface RequestPacer {
  /** Resolves with the instant (epoch ms) each of `count` requests may start. */
  reserve(count: number, options?: { signal?: AbortSignal }): Promise<number[]>;
  /** The provider answered 429: no slot starts before `untilMs`, fleet-wide. */
  coolDown(untilMs: number): Promise<void>;
}

/** How long a 429 without a Retry-After holds the fleet back: one second of the provider's limit. */
const DEFAULT_COOL_DOWN_MS = 1_000;
/** Reservations one request makes at most before it leaves at the last, late slot. */
const MAX_RESERVATIONS = 3;

/**
 * Each request waits for a slot of the fleet's pacer before it leaves, and a 429 moves every later slot past its
 * Retry-After: the reconciler's look-ups then share the provider's limit with the workers' sends instead of
 * running into it (a look-up refused with 429 is looked at again a minute later, docs/submission.md).
 *
 * A request whose slot cannot be had (the pacer's item unreachable or contended past the request's signal) leaves
 * unpaced: it only reads, and a read refused with 429 costs a retry, while a read not made leaves a payout
 * undecided.
 */
export class PacedTransport implements Transport {
  readonly #inner: Transport;
  readonly #pacer: RequestPacer;
  readonly #now: () => number;
  readonly #maxLatenessMs: number;

  /**
   * `maxLatenessMs`: how late a request may still leave after its slot (the workers' MAX_SEND_LATENESS_MS). A slot
   * that came back later than that has passed for others too, and leaving at it would put two slots' requests
   * into one instant, so a new one is taken.
   */
  constructor(inner: Transport, pacer: RequestPacer, options: { maxLatenessMs: number; now?: () => number }) {
    this.#inner = inner;
    this.#pacer = pacer;
    this.#now = options.now ?? Date.now;
    this.#maxLatenessMs = options.maxLatenessMs;
  }

  async request(request: TransportRequest): Promise<TransportResponse> {
    await this.#waitForSlot(request.signal);
    const response = await this.#inner.request(request);
    if (response.status === 429) {
      const now = this.#now();
      const waitMs = parseRetryAfterMs(response.headers['retry-after'], now) ?? DEFAULT_COOL_DOWN_MS;
      // The answer stands whether or not the fleet could be told; the requester decides the retry.
      await this.#pacer.coolDown(now + waitMs).catch(() => undefined);
    }
    return response;
  }

  prepare(): Promise<void> {
    return this.#inner.prepare?.() ?? Promise.resolve();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #waitForSlot(signal: AbortSignal | undefined): Promise<void> {
    for (let reservation = 0; reservation < MAX_RESERVATIONS; reservation++) {
      let slot: number | undefined;
      try {
        [slot] = await this.#pacer.reserve(1, signal ? { signal } : {});
      } catch {
        return;
      }
      const waitMs = (slot ?? 0) - this.#now();
      if (waitMs >= -this.#maxLatenessMs) {
        if (waitMs > 0) await abortableSleep(waitMs, signal);
        return;
      }
    }
  }
}
