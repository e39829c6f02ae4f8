import { request } from 'node:http';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalBusEvent, type LocalEventBus, serveLocalEventBus } from '../../lib/local/event-bus.js';
import { type LocalApiServer, serveApiGatewayHandler } from '../../lib/local/http-to-apigw.js';
import { CapturingLogger } from '../../lib/shared/logger.js';
import { type ApiHarness, bankTransfer, startApiHarness } from '../api/support/harness.js';

/**
 * A web page the operator has open must not drive `npm start`'s local servers (one once could). A
 * `text/plain` POST with `Origin: http://evil.example` to the local bus created a payout that was paid,
 * `POST /controls/resume` worked cross-site, and the Host header was not checked (DNS rebinding).
 */

interface RawReply {
  status: number;
  body: string;
}

/** A raw HTTP request: fetch forbids setting Host, which is exactly what a rebinding page controls. */
function send(
  url: string,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<RawReply> {
  const target = new URL(options.path ?? '/', url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: options.method ?? 'POST',
        headers: options.headers,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const EVIL = 'http://evil.example';
const event = JSON.stringify({
  Entries: [
    {
      Source: 'merchant.payouts',
      DetailType: 'Payout Requested',
      Detail: JSON.stringify({ version: '1', payout: bankTransfer() }),
    },
  ],
});

let h: ApiHarness;
let api: LocalApiServer;
let bus: LocalEventBus;
const delivered: LocalBusEvent[] = [];
const host = (server: { url: string }) => new URL(server.url).host;

beforeAll(async () => {
  h = await startApiHarness();
  api = await serveApiGatewayHandler(h.api, { port: 0 });
  bus = await serveLocalEventBus(
    [
      {
        name: 'payout-requested',
        source: 'merchant.payouts',
        detailType: 'Payout Requested',
        deliver: async (e) => {
          delivered.push(e);
        },
      },
    ],
    { port: 0, logger: new CapturingLogger() },
  );
});
afterAll(async () => {
  await bus?.close();
  await api?.close();
  await h?.close();
});

describe('local event bus refuses what a web page can send', () => {
  it('refuses a text/plain cross-site POST of a Payout Requested event (the form post that got paid)', async () => {
    const reply = await send(bus.url, {
      headers: { 'content-type': 'text/plain', origin: EVIL, host: host(bus) },
      body: event,
    });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toMatchObject({ __type: 'CROSS_SITE_REQUEST' });
    await bus.settled();
    expect(delivered).toEqual([]);
  });

  it('refuses a text/plain POST even without an Origin (a browser that omits it)', async () => {
    const reply = await send(bus.url, {
      headers: { 'content-type': 'text/plain', host: host(bus) },
      body: event,
    });
    expect(reply.status).toBe(415);
    expect(JSON.parse(reply.body).message).toContain('application/x-amz-json-1.1 or application/json');
    await bus.settled();
    expect(delivered).toEqual([]);
  });

  it('refuses a JSON POST from a page whose name was rebound to 127.0.0.1 (foreign Host)', async () => {
    const port = new URL(bus.url).port;
    for (const rebound of [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, '127.0.0.1', '127.0.0.1:1']) {
      const reply = await send(bus.url, {
        headers: { 'content-type': 'application/json', host: rebound },
        body: event,
      });
      expect(reply.status, rebound).toBe(421);
    }
    await bus.settled();
    expect(delivered).toEqual([]);
  });

  it('refuses a request a browser marks as cross-site, whatever its Origin says', async () => {
    const reply = await send(bus.url, {
      headers: { 'content-type': 'application/json', host: host(bus), 'sec-fetch-site': 'cross-site' },
      body: event,
    });
    expect(reply.status).toBe(403);
  });

  it('accepts what the AWS SDK sends: application/x-amz-json-1.1 to 127.0.0.1:<port>', async () => {
    const sent: Record<string, string>[] = [];
    const client = new EventBridgeClient({
      endpoint: bus.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    client.middlewareStack.add(
      (next) => async (args) => {
        const { headers } = args.request as { headers: Record<string, string> };
        sent.push(headers);
        return next(args);
      },
      { step: 'finalizeRequest', name: 'recordHeaders' },
    );
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [{ Source: 'elsewhere', DetailType: 'Other', Detail: '{}' }],
      }),
    );
    client.destroy();
    expect(answer.FailedEntryCount).toBe(0);
    expect(sent[0]?.['content-type']).toBe('application/x-amz-json-1.1');
    expect(sent[0]?.host).toBe(host(bus));
  });

  it('accepts JSON from a local client under every loopback name, and its own loopback origin', async () => {
    const port = new URL(bus.url).port;
    for (const name of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const reply = await send(bus.url, {
        headers: { 'content-type': 'application/json; charset=utf-8', host: name, origin: `http://${name}` },
        body: event,
      });
      expect(reply.status, name).toBe(200);
    }
    await bus.settled();
    expect(delivered).toHaveLength(3);
  });
});

describe('local ops API refuses what a web page can send', () => {
  const pause = () =>
    send(api.url, {
      path: '/controls/pause',
      headers: { 'content-type': 'application/json', host: host(api) },
      body: JSON.stringify({ reason: 'incident' }),
    });
  const controls = async () =>
    JSON.parse(
      (await send(api.url, { method: 'GET', path: '/controls', headers: { host: host(api) } })).body,
    );

  it('refuses a cross-site POST /controls/resume and stays paused', async () => {
    expect((await pause()).status).toBe(200);
    const reply = await send(api.url, {
      path: '/controls/resume',
      headers: { 'content-type': 'application/json', origin: EVIL, host: host(api) },
      body: '{}',
    });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toMatchObject({
      type: 'urn:payout-automation:problem:cross-site-request',
      status: 403,
    });
    expect(await controls()).toMatchObject({ paused: true });
  });

  it('refuses a cross-site text/plain POST /payouts and stores nothing', async () => {
    const before = (await h.items()).length;
    const reply = await send(api.url, {
      path: '/payouts',
      headers: { 'content-type': 'text/plain', origin: 'null', host: host(api), 'idempotency-key': 'x-site' },
      body: JSON.stringify(bankTransfer()),
    });
    expect(reply.status).toBe(403);
    expect((await h.items()).length).toBe(before);
  });

  it('refuses a command that is not JSON, even with no body, and a rebound Host', async () => {
    const bodiless = await send(api.url, { path: '/controls/resume', headers: { host: host(api) } });
    expect(bodiless.status).toBe(415);
    const form = await send(api.url, {
      path: '/controls/resume',
      headers: { 'content-type': 'application/x-www-form-urlencoded', host: host(api) },
      body: 'a=1',
    });
    expect(form.status).toBe(415);
    const rebound = await send(api.url, {
      method: 'GET',
      path: '/controls',
      headers: { host: `evil.example:${new URL(api.url).port}` },
    });
    expect(rebound.status).toBe(421);
    expect(await controls()).toMatchObject({ paused: true });
  });

  it('still serves a local client: same-origin JSON resumes', async () => {
    const reply = await send(api.url, {
      path: '/controls/resume',
      headers: { 'content-type': 'application/json', host: host(api), origin: `http://${host(api)}` },
      body: '{}',
    });
    expect(reply.status).toBe(200);
    expect(await controls()).toMatchObject({ paused: false });
  });

  it('takes a same-origin text/csv upload of bulk corrections (the one body that is not JSON)', async () => {
    const reply = await send(api.url, {
      path: '/bulk-payout-items/corrections',
      headers: { 'content-type': 'text/csv', host: host(api) },
      body: 'bulkPayoutItemId,nickname\nitem-1,x\n',
    });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body).errors[0].message).toContain('unknown column "nickname"');
  });
});
