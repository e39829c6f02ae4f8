import type { Transport, TransportRequest, TransportResponse } from '../../../lib/provider/transport.js';

/** A transport answering from a function, recording every request. */
export class StubTransport implements Transport {
  readonly requests: TransportRequest[] = [];
  constructor(
    readonly respond: (request: TransportRequest) => TransportResponse | Promise<TransportResponse>,
  ) {}

  async request(request: TransportRequest): Promise<TransportResponse> {
    this.requests.push(request);
    return this.respond(request);
  }

  async close(): Promise<void> {}
}

/** 200 with a JSON body. Missing `undefined` fields vanish, as on the wire. */
export function ok(body: unknown): TransportResponse {
  return { status: 200, headers: {}, body: JSON.stringify(body) };
}
