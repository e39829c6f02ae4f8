import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SEND_LATENESS_MS } from '../../lib/payouts/queue/rate-limiter.js';
import { DynamoDbRateLimiter } from '../../lib/payouts/store/dynamodb-rate-limiter.js';
import { ProviderConnection } from '../../lib/provider/connection.js';
import { StaticCredentialsSource } from '../../lib/provider/credentials.js';
import { PacedTransport, type RequestPacer } from '../../lib/provider/paced-transport.js';
import { Transactions } from '../../lib/provider/resources/transactions.js';
import type { Transport, TransportRequest, TransportResponse } from '../../lib/provider/transport.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { createTestTable } from '../support/dynamodb.js';

const LIMIT_PER_SECOND = 4;
const READS = 8;

let sandbox: Sandbox;
let table: Awaited<ReturnType<typeof createTestTable>>;

beforeAll(async () => {
  sandbox = await startSandbox();
  table = await createTestTable('paced-reads');
});
afterAll(async () => {
  await sandbox.close();
  table.client.destroy();
});
beforeEach(() => {
  sandbox.reset();
  // The provider's limit on its listing, as the reconciler's look-ups meet it.
  sandbox.injectFault({
    path: '/transaction/wallet',
    fault: 'rate-limit',
    perSecond: LIMIT_PER_SECOND,
    times: 0,
  });
});

/** A burst of look-ups as a reconciler pass starts them, all at once, each retried once after a 429. */
async function burstOfReads(wrapTransport?: (inner: Transport) => Transport) {
  const connection = new ProviderConnection({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    retry: { maxAttempts: 1 },
    ...(wrapTransport && { wrapTransport }),
  });
  const transactions = new Transactions(connection.requester);
  try {
    return await Promise.allSettled(
      Array.from({ length: READS }, () => transactions.listWallet({ type: 'DEBIT', perPage: 10 })),
    );
  } finally {
    await connection.close();
  }
}

describe('reads paced by the fleet pacer', () => {
  it("stay within the provider's limit: a burst of look-ups meets no 429", async () => {
    // The workers' pacer, on its DynamoDB item, at their pacing fraction of the limit.
    const pacer = new DynamoDbRateLimiter(table.client, table.tableName, {
      perSecond: LIMIT_PER_SECOND * 0.95,
    });
    const results = await burstOfReads(
      (inner) => new PacedTransport(inner, pacer, { maxLatenessMs: MAX_SEND_LATENESS_MS }),
    );
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(sandbox.stats().rateLimited).toBe(0);
    expect(sandbox.stats().requests['/transaction/wallet']).toBe(READS);
  });

  it('unpaced, the same burst is refused with 429 above the limit', async () => {
    const results = await burstOfReads();
    expect(results.filter((result) => result.status === 'rejected').length).toBeGreaterThan(0);
    expect(sandbox.stats().rateLimited).toBeGreaterThan(0);
  });
});

/** A pacer that gives the slots it is told to and records what it was asked. */
class RecordingPacer implements RequestPacer {
  readonly reserved: number[] = [];
  readonly cooledDownUntil: number[] = [];
  constructor(readonly slot: () => Promise<number>) {}
  async reserve(count: number): Promise<number[]> {
    this.reserved.push(count);
    return [await this.slot()];
  }
  async coolDown(untilMs: number): Promise<void> {
    this.cooledDownUntil.push(untilMs);
  }
}

/** A transport that answers every request with `response` and counts them. */
function answering(response: TransportResponse): Transport & { readonly requests: TransportRequest[] } {
  const requests: TransportRequest[] = [];
  return {
    requests,
    request: async (request) => {
      requests.push(request);
      return response;
    },
    close: async () => undefined,
  };
}

const GET: TransportRequest = {
  method: 'GET',
  path: '/transaction/wallet',
  headers: {},
  body: undefined,
  timeoutMs: 1_000,
  signal: undefined,
};

describe('the paced transport', () => {
  it("moves the fleet's next slot past a 429's Retry-After, and answers the 429 as it came", async () => {
    const now = 1_000_000;
    const pacer = new RecordingPacer(async () => now);
    const inner = answering({ status: 429, headers: { 'retry-after': '3' }, body: '{}' });
    const response = await new PacedTransport(inner, pacer, {
      maxLatenessMs: MAX_SEND_LATENESS_MS,
      now: () => now,
    }).request(GET);
    expect(response.status).toBe(429);
    expect(pacer.reserved).toEqual([1]);
    expect(pacer.cooledDownUntil).toEqual([now + 3_000]);
  });

  it('holds a 429 without Retry-After back one second', async () => {
    const now = 2_000_000;
    const pacer = new RecordingPacer(async () => now);
    await new PacedTransport(answering({ status: 429, headers: {}, body: '{}' }), pacer, {
      maxLatenessMs: MAX_SEND_LATENESS_MS,
      now: () => now,
    }).request(GET);
    expect(pacer.cooledDownUntil).toEqual([now + 1_000]);
  });

  it('sends a read whose slot cannot be had, unpaced, rather than not at all', async () => {
    const pacer = new RecordingPacer(() => Promise.reject(new Error('pacer item unreachable')));
    const inner = answering({ status: 200, headers: {}, body: '{}' });
    const response = await new PacedTransport(inner, pacer, { maxLatenessMs: MAX_SEND_LATENESS_MS }).request(
      GET,
    );
    expect(response.status).toBe(200);
    expect(inner.requests).toHaveLength(1);
    expect(pacer.cooledDownUntil).toEqual([]);
  });
});
