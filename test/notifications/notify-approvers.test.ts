import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  APPROVAL_DECIDED_EVENT,
  APPROVAL_REQUESTED_EVENT,
  type PublishedEvent,
} from '../../lib/events/domain-events.js';
import { InProcessEventBus } from '../../lib/events/event-publisher.js';
import { type LocalSnsEndpoint, serveLocalSns } from '../../lib/local/sns-endpoint.js';
import { StreamRelay } from '../../lib/local/stream-relay.js';
import {
  notify,
  verifyWebhook,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from '../../lib/notifications/index.js';
import { approvePayout } from '../../lib/payouts/engine/payout-commands.js';
import { type NotifierRuntime, notifierFromEnv } from '../../lib/runtime/notifier.js';
import {
  bankTransfer,
  bob,
  command,
  type EngineHarness,
  HARNESS_PIN,
  HARNESS_TOKEN,
  startEngineHarness,
} from '../support/engine-harness.js';

const SIGNING_KEY = 'whsec-NEVER-SHOWN-4f0a9c2e71';
const ACCOUNT_NUMBER = '0123456789';

/** A webhook receiver on 127.0.0.1 that keeps only bodies whose signature it verified. */
interface Receiver {
  readonly url: string;
  readonly verified: { detailType: string; text: string; fields: Record<string, string> }[];
  readonly refused: number;
  readonly raw: string[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const state = { verified: [] as Receiver['verified'], refused: 0, raw: [] as string[] };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    state.raw.push(body);
    const ok = verifyWebhook(
      SIGNING_KEY,
      {
        timestamp: req.headers[WEBHOOK_TIMESTAMP_HEADER] as string | undefined,
        signature: req.headers[WEBHOOK_SIGNATURE_HEADER] as string | undefined,
      },
      body,
    );
    if (!ok) {
      state.refused++;
      res.writeHead(401).end();
      return;
    }
    state.verified.push(JSON.parse(body));
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/approvals`,
    get verified() {
      return state.verified;
    },
    get refused() {
      return state.refused;
    },
    get raw() {
      return state.raw;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let h: EngineHarness;
let sns: LocalSnsEndpoint;
let receiver: Receiver;
let notifier: NotifierRuntime;

beforeAll(async () => {
  h = await startEngineHarness({ approvalThresholdKobo: 1_000_000 });
  sns = await serveLocalSns();
  receiver = await startReceiver();
  notifier = notifierFromEnv(
    {
      TABLE_NAME: h.tableName,
      DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint'),
      NOTIFY_TOPIC_ARN: sns.topicArn,
      SNS_ENDPOINT: sns.url,
      NOTIFY_WEBHOOK_URL: receiver.url,
      NOTIFY_WEBHOOK_SIGNING_KEY: SIGNING_KEY,
    },
    { logger: h.logger },
  );
});
afterAll(async () => {
  notifier.close();
  await receiver.close();
  await sns.close();
  await h.close();
});

/** The table's stream read from its start by a new relay: every record delivered again, as a stream retry does. */
async function relayAll(): Promise<PublishedEvent[]> {
  const bus = new InProcessEventBus();
  const events: PublishedEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const relay = await StreamRelay.forTable(
    h.dynamoDb,
    inject('dynamoDbEndpoint'),
    h.tableName,
    bus,
    h.logger,
  );
  await relay.pollOnce();
  await relay.stop();
  return events;
}

/** Each event as the EventBridge rule hands it to the notifier (JSON, as it crossed the bus). */
async function deliver(events: readonly PublishedEvent[]): Promise<void> {
  for (const event of events) {
    await notify(notifier, {
      'detail-type': event.detailType,
      detail: JSON.parse(JSON.stringify(event.detail)),
    });
  }
}

describe('approvers are told when something waits for them', () => {
  let largeId = '';
  let smallId = '';

  it('an above-threshold payout notifies once by SNS and once by a verified webhook, though its stream record and its event arrive twice; a below-threshold one not at all', async () => {
    const { payout: large } = await h.engine.create(command(bankTransfer(2_500_000), 'notify-large'));
    const { payout: small } = await h.engine.create(command(bankTransfer(10_000), 'notify-small'));
    largeId = large.id;
    smallId = small.id;
    // The stream read twice (a retried batch) and every event handed over twice (EventBridge at least once).
    const first = await relayAll();
    const again = await relayAll();
    await deliver([...first, ...again]);
    await deliver(first);

    const requested = receiver.verified.filter((body) => body.detailType === APPROVAL_REQUESTED_EVENT);
    expect(requested).toHaveLength(1);
    expect(receiver.refused).toBe(0);
    expect(requested[0]?.fields).toMatchObject({
      instruction: `Payout ${large.id}`,
      amount: 'NGN 25,000.00',
      requestedBy: 'alice',
      link: `/payouts/${large.id}`,
      approve: `npx payouts payouts approve ${large.id}`,
    });
    const emails = sns.published.filter((message) => message.subject.startsWith('Approval needed'));
    expect(emails).toHaveLength(1);
    expect(emails[0]?.subject).toBe('Approval needed: Payout NGN 25,000.00');
    expect(emails[0]?.message).toContain(`link: /payouts/${large.id}`);
    expect([...receiver.raw, ...sns.published.map((m) => m.message)].join('\n')).not.toContain(small.id);
  });

  it('an approval notifies once, naming the approver', async () => {
    await approvePayout(h.engine.ctx, largeId, bob);
    const events = await relayAll();
    await deliver(events);
    await deliver(events);
    const decided = receiver.verified.filter((body) => body.detailType === APPROVAL_DECIDED_EVENT);
    expect(decided).toHaveLength(1);
    expect(decided[0]?.fields).toMatchObject({
      decision: 'approved',
      decidedBy: 'bob',
      requestedBy: 'alice',
    });
    const emails = sns.published.filter((message) => message.subject.includes('approved by bob'));
    expect(emails).toHaveLength(1);
    expect(smallId).not.toBe('');
  });

  it('a first of two approvals tells the approvers once per channel that it waits for a second person, naming the first approver', async () => {
    const ctx = {
      ...h.engine.ctx,
      config: { ...h.engine.ctx.config, secondApprovalThresholdKobo: 2_000_000 },
    };
    const { payout } = await h.engine.create(command(bankTransfer(3_000_000), 'notify-two-approvers'));
    const first = await approvePayout(ctx, payout.id, bob);
    expect(first.status).toBe('pending_approval');
    // The stream read twice and every event handed over twice: still one message per channel.
    const events = await relayAll();
    const again = await relayAll();
    await deliver([...events, ...again]);
    await deliver(events);

    const second = receiver.verified.filter(
      (body) =>
        body.detailType === APPROVAL_REQUESTED_EVENT && body.fields.instruction === `Payout ${payout.id}`,
    );
    expect(second.map((body) => body.fields.firstApprovedBy)).toEqual([undefined, 'bob']);
    expect(second[1]?.fields).toMatchObject({
      amount: 'NGN 30,000.00',
      requestedBy: 'alice',
      firstApprovedBy: 'bob',
      waitsFor: 'a second approver',
      approve: `npx payouts payouts approve ${payout.id}`,
    });
    const emails = sns.published.filter((message) => message.subject.startsWith('Second approval needed'));
    expect(emails).toHaveLength(1);
    expect(emails[0]?.subject).toBe('Second approval needed: Payout NGN 30,000.00');
    expect(emails[0]?.message).toContain('firstApprovedBy: bob');
  });

  it('a receiver refuses a body that was changed after signing', async () => {
    const before = receiver.refused;
    const body = JSON.stringify({ text: 'approve me' });
    const signed = receiver.raw[0] ?? '';
    const answer = await fetch(receiver.url, {
      method: 'POST',
      headers: {
        [WEBHOOK_TIMESTAMP_HEADER]: String(Math.floor(Date.now() / 1000)),
        [WEBHOOK_SIGNATURE_HEADER]: 'v1=00',
      },
      body,
    });
    expect(answer.status).toBe(401);
    expect(receiver.refused).toBe(before + 1);
    expect(signed).not.toBe('');
  });

  it('a webhook that fails is retried alone: the email already sent is not sent again', async () => {
    let answers = [503];
    const flaky = createServer((req, res) => {
      req.resume();
      res.writeHead(answers.shift() ?? 204).end();
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const { port } = flaky.address() as AddressInfo;
    const flakyNotifier = notifierFromEnv(
      {
        TABLE_NAME: h.tableName,
        DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint'),
        NOTIFY_TOPIC_ARN: sns.topicArn,
        SNS_ENDPOINT: sns.url,
        NOTIFY_WEBHOOK_URL: `http://127.0.0.1:${port}/`,
        NOTIFY_WEBHOOK_SIGNING_KEY: SIGNING_KEY,
      },
      { logger: h.logger },
    );
    const event = {
      'detail-type': 'Payout Needs Review',
      detail: {
        eventId: 'p-review:7',
        payoutId: 'p-review',
        amountKobo: 123_456,
        failure: { code: 'UNKNOWN' },
      },
    };
    try {
      await expect(notify(flakyNotifier, event)).rejects.toThrow(/not delivered to webhook/);
      expect(await notify(flakyNotifier, event)).toBe('sent');
      expect(await notify(flakyNotifier, event)).toBe('duplicate');
      expect(sns.published.filter((m) => m.subject === 'Payout needs review: NGN 1,234.56')).toHaveLength(1);
      expect(answers).toEqual([]);
    } finally {
      answers = [];
      flakyNotifier.close();
      await new Promise<void>((resolve) => flaky.close(() => resolve()));
    }
  });

  it('no notification carries the account number beyond its last 4 digits, the provider token or PIN, or the signing key', () => {
    const everything = [...receiver.raw, ...sns.published.flatMap((m) => [m.subject, m.message])].join('\n');
    expect(everything).not.toBe('');
    for (const secret of [
      ACCOUNT_NUMBER,
      ACCOUNT_NUMBER.slice(0, 6),
      HARNESS_TOKEN,
      HARNESS_PIN,
      SIGNING_KEY,
    ]) {
      expect(everything).not.toContain(secret);
    }
  });
});
