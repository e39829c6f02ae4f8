import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalBusEvent, type LocalEventBus, serveLocalEventBus } from '../../lib/local/event-bus.js';
import { CapturingLogger } from '../../lib/shared/logger.js';

const logger = new CapturingLogger();
const received: LocalBusEvent[] = [];
let bus: LocalEventBus;
let client: EventBridgeClient;

beforeAll(async () => {
  bus = await serveLocalEventBus(
    [
      {
        name: 'payout-requested',
        source: 'merchant.payouts',
        detailType: 'Payout Requested',
        deliver: async (event) => {
          received.push(event);
          if ((event.detail as { fail?: boolean }).fail) throw new Error('handler refused it');
          return 'handled';
        },
      },
    ],
    { port: 0, logger },
  );
  // The real AWS SDK client, pointed at the local bus: what `aws events put-events --endpoint-url` does too.
  client = new EventBridgeClient({
    endpoint: bus.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});
afterAll(async () => {
  client.destroy();
  await bus.close();
});

describe('local event bus (PutEvents on 127.0.0.1)', () => {
  it('answers PutEvents with an id per entry and delivers each event to the matching rule', async () => {
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [
          { Source: 'merchant.payouts', DetailType: 'Payout Requested', Detail: JSON.stringify({ n: 1 }) },
          { Source: 'elsewhere', DetailType: 'Other', Detail: '{}' },
        ],
      }),
    );
    expect(answer.FailedEntryCount).toBe(0);
    const ids = answer.Entries?.map((entry) => entry.EventId);
    expect(ids).toHaveLength(2);
    await bus.settled();

    const delivered = received.find((event) => event.id === ids?.[0]);
    expect(delivered).toMatchObject({
      version: '0',
      source: 'merchant.payouts',
      'detail-type': 'Payout Requested',
      detail: { n: 1 },
    });
    expect(received.some((event) => event.id === ids?.[1])).toBe(false);
    expect(logger.entries).toContainEqual(
      expect.objectContaining({
        message: 'local event bus: event delivered',
        fields: expect.objectContaining({ eventId: ids?.[0], outcome: 'handled' }),
      }),
    );
    expect(logger.entries).toContainEqual(
      expect.objectContaining({
        message: 'local event bus: no rule matches the event; dropped',
        fields: expect.objectContaining({ eventId: ids?.[1] }),
      }),
    );
  });

  it('refuses an entry whose Detail is not a JSON object, as EventBridge does, and delivers nothing for it', async () => {
    const before = received.length;
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [{ Source: 'merchant.payouts', DetailType: 'Payout Requested', Detail: 'not json' }],
      }),
    );
    await bus.settled();
    expect(answer.FailedEntryCount).toBe(1);
    expect(answer.Entries?.[0]?.ErrorCode).toBe('MalformedDetail');
    expect(received.length).toBe(before);
  });

  it('logs a delivery that failed, naming the rule and the event', async () => {
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            Source: 'merchant.payouts',
            DetailType: 'Payout Requested',
            Detail: JSON.stringify({ fail: true }),
          },
        ],
      }),
    );
    await bus.settled();
    expect(logger.entries).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'local event bus: delivery failed',
        fields: expect.objectContaining({
          rule: 'payout-requested',
          eventId: answer.Entries?.[0]?.EventId,
          error: 'Error: handler refused it',
        }),
      }),
    );
  });

  it('answers a malformed request with 400 naming the field, and a plain JSON POST works without the SDK', async () => {
    const json = { 'content-type': 'application/json' };
    const bad = await fetch(bus.url, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ Entries: [{ Source: 'x' }] }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      __type: 'ValidationException',
      message: expect.stringContaining('Entries[0].DetailType'),
    });

    const oversized = await fetch(bus.url, {
      method: 'POST',
      headers: json,
      body: 'x'.repeat(300 * 1024),
    });
    expect(oversized.status).toBe(400);
    expect(await oversized.json()).toMatchObject({ message: expect.stringContaining('over 262144 bytes') });

    const plain = await fetch(bus.url, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        Entries: [{ Source: 'merchant.payouts', DetailType: 'Payout Requested', Detail: '{"n":2}' }],
      }),
    });
    expect(plain.status).toBe(200);
    await bus.settled();
    expect(received.at(-1)?.detail).toEqual({ n: 2 });
  });
});
