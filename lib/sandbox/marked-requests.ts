/**
 * When each provider request carrying a payout's marker arrived (`GET /__sandbox/marked-requests`), so a benchmark
 * can read the first provider call of every payout over HTTP, faulted ones included: the ledger holds only the
 * operations that committed, and a request answered 503 was a call all the same.
 */

/**
 * The engine's marker in a narration: `po_` and a payout id (a ULID), `_<n>` for attempt n > 1. The sandbox only
 * reads it; nothing it answers depends on it.
 */
const MARKER = /po_([0-9a-hjkmnp-tv-z]{26})(?:_(\d+))?/i;

/** Beyond this many, the oldest are dropped: a sandbox left running for days stays bounded. */
const MAX_KEPT = 200_000;

export interface MarkedRequest {
  /** The payout id of the marker (upper case, as the engine writes ULIDs). */
  readonly payoutId: string;
  /** 1 for `po_<id>`, n for `po_<id>_<n>`. */
  readonly attempt: number;
  readonly method: string;
  readonly path: string;
  /** Arrival on the sandbox's clock, epoch milliseconds, before any fault or latency. */
  readonly atMs: number;
  /** The injected fault that answered it, if one did. */
  readonly fault?: string;
}

export class MarkedRequests {
  #requests: MarkedRequest[] = [];

  /** Records the request when its body carries a payout marker; answers whether it did. */
  record(request: Omit<MarkedRequest, 'payoutId' | 'attempt'> & { readonly body: string }): boolean {
    const match = MARKER.exec(request.body);
    if (!match?.[1]) return false;
    const { body: _body, ...rest } = request;
    this.#requests.push({
      ...rest,
      payoutId: match[1].toUpperCase(),
      attempt: match[2] === undefined ? 1 : Number(match[2]),
    });
    if (this.#requests.length > MAX_KEPT) this.#requests.splice(0, this.#requests.length - MAX_KEPT);
    return true;
  }

  list(): readonly MarkedRequest[] {
    return this.#requests;
  }

  clear(): void {
    this.#requests = [];
  }
}
