import { isMutating } from './failure.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';

/**
 * Reads over one transport, every method that can move money over another: the provider connection sends reads
 * over Node's own HTTP client (NodeHttpTransport, loaded already on a cold start) and payouts over undici's pool
 * (HttpTransport). `prepare`, which the engine calls while a claim is on its way, readies the one a payout takes.
 */
export class SplitTransport implements Transport {
  readonly #reads: Transport;
  readonly #writes: Transport;

  constructor(transports: { readonly reads: Transport; readonly writes: Transport }) {
    this.#reads = transports.reads;
    this.#writes = transports.writes;
  }

  request(request: TransportRequest): Promise<TransportResponse> {
    return (isMutating(request.method) ? this.#writes : this.#reads).request(request);
  }

  async prepare(): Promise<void> {
    await this.#writes.prepare?.();
  }

  async close(): Promise<void> {
    await Promise.all([this.#reads.close(), this.#writes.close()]);
  }
}
