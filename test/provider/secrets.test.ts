import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../lib/provider/client.js';
import { StaticCredentialsSource } from '../../lib/provider/credentials.js';
import { ProviderError } from '../../lib/provider/errors.js';
import type { Logger } from '../../lib/provider/types.js';
import { closedPort, json, type Received, startServer } from './support/http-server.js';

const TOKEN = 'tok_live_Zq8SECRETxY3';
const PIN = '582039';

/** Echoes everything it received, secrets included, in a way chosen by the path. */
function echo(request: Received): string {
  return `you sent ${request.headers.authorization} with ${request.body}`;
}

let server: Awaited<ReturnType<typeof startServer>>;
const logLines: unknown[] = [];
const logger: Logger = {
  debug: (message, fields) => logLines.push({ message, fields }),
  info: (message, fields) => logLines.push({ message, fields }),
  warn: (message, fields) => logLines.push({ message, fields }),
  error: (message, fields) => logLines.push({ message, fields }),
};

beforeAll(async () => {
  server = await startServer((request, res) => {
    const path = request.url.split('?')[0];
    switch (path) {
      case '/wallet/transfer':
        return json(res, 400, { status: false, message: echo(request) });
      case '/wallet/credit':
        return json(res, 403, { status: false, message: echo(request) });
      case '/wallet/enable':
        return json(res, 500, { status: false, message: echo(request) });
      case '/branch/store':
        return json(res, 401, { status: false, message: echo(request) });
      case '/settlement':
        return json(res, 503, { status: false, message: echo(request) });
      case '/refund':
        return json(res, 429, { status: false, message: echo(request) }, { 'retry-after': '1' });
      case '/virtual-accounts':
        return json(res, 200, { status: true, data: { echoed: echo(request), tier: echo(request) } });
      case '/child/debit':
        return res.socket?.destroy();
      case '/child/bank':
        return; // never answers
      default:
        return json(res, 404, { status: false, message: echo(request) });
    }
  });
});
afterAll(() => server.close());

function clientFor(baseUrl: string) {
  return new ProviderClient({
    baseUrl,
    credentials: new StaticCredentialsSource({ token: TOKEN, pin: PIN }),
    retry: { maxAttempts: 2, baseDelayMs: 0, sleep: async () => {} },
    logger,
  });
}

async function everyError(): Promise<unknown[]> {
  const client = clientFor(server.url);
  const refusedClient = clientFor(`http://127.0.0.1:${await closedPort()}`);
  const body = { amount: 200, narration: 'n' };
  const bankBody = { ...body, bankCode: '058', accountNumber: '0123456789', accountName: 'A' };
  const calls: Promise<unknown>[] = [
    client.wallets.transfer({ ...body, fromWalletId: 'a', toWalletId: 'b' }),
    client.wallets.credit({ ...body, walletId: 'a' }),
    client.wallets.debit({ ...body, walletId: 'a' }),
    client.stores.list({}),
    client.settlements.list({}),
    client.refunds.create({ transactionId: 't', amount: 1, customerNote: 'c', merchantNote: 'm' }),
    client.virtualAccounts.get({ customerReference: 'c' }),
    client.childAccounts.debit({ ...body, childAccountId: 'c' }),
    client.childAccounts.bankTransfer({ ...bankBody, childAccountId: 'c' }, { timeoutMs: 100 }),
    client.transactions.info({ transactionId: 'x' }),
    client.wallets.transfer({ ...body, amount: 0.5, fromWalletId: 'a', toWalletId: 'b' }),
    refusedClient.wallets.transfer({ ...body, fromWalletId: 'a', toWalletId: 'b' }),
  ];
  const errors = await Promise.all(
    calls.map((call) =>
      call.then(
        () => undefined,
        (error: unknown) => error,
      ),
    ),
  );
  await client.close();
  await refusedClient.close();
  return errors;
}

function renderings(error: unknown): string[] {
  const out = [JSON.stringify(error), String(error), inspect(error, { depth: 10 })];
  if (error instanceof Error) out.push(error.stack ?? '', error.message);
  if (error instanceof Error && error.cause !== undefined)
    out.push(inspect(error.cause, { depth: 10 }), JSON.stringify(error.cause));
  return out;
}

describe('secrets', () => {
  it('never appear in any error, however it is serialised, even when the provider echoes them', async () => {
    const errors = await everyError();
    expect(errors).toHaveLength(12);
    const codes = new Set<string>();
    for (const error of errors) {
      expect(error).toBeInstanceOf(ProviderError);
      if (error instanceof ProviderError) codes.add(error.code);
      for (const text of renderings(error)) {
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain(PIN);
      }
    }
    // Every class of the hierarchy was exercised.
    expect([...codes].sort()).toEqual([
      'PROVIDER_INVALID_REQUEST',
      'PROVIDER_MALFORMED_RESPONSE',
      'PROVIDER_OUTCOME_UNKNOWN',
      'PROVIDER_REJECTED',
      'PROVIDER_UNAVAILABLE',
    ]);
    // The echo really happened: the provider message survives, scrubbed.
    const rejected = errors.find((e) => e instanceof ProviderError && e.code === 'PROVIDER_REJECTED');
    expect(String(rejected)).toContain('you sent Bearer [REDACTED]');
  });

  it('never appear in log lines', async () => {
    logLines.length = 0;
    await everyError();
    expect(logLines.length).toBeGreaterThan(0);
    const text = JSON.stringify(logLines);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(PIN);
  });

  it('never appear when inspecting the client or its credentials source', () => {
    const client = clientFor(server.url);
    const text = `${inspect(client, { depth: 10 })}${JSON.stringify(new StaticCredentialsSource({ token: TOKEN, pin: PIN }))}`;
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(PIN);
    return client.close();
  });
});
