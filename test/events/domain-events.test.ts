import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type DomainEvent,
  domainEventOf,
  isPayoutEvent,
  publishedEventOf,
  StatementMismatchDetailSchema,
} from '../../lib/events/domain-events.js';
import { type EventPublisher, InProcessEventBus, putEventsInput } from '../../lib/events/event-publisher.js';
import { publishStreamBatch } from '../../lib/events/publish-stream-batch.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { StreamRelay } from '../../lib/local/stream-relay.js';
import { type Payout, PayoutStatus } from '../../lib/payouts/model.js';
import { toPayoutItem } from '../../lib/payouts/store/item-codec.js';
import { xrayTraceHeaderOf } from '../../lib/shared/tracing.js';
import { bankTransfer, command, type EngineHarness, startEngineHarness } from '../support/engine-harness.js';

let h: EngineHarness;
let dynamoDb: DynamoDBClient;

beforeAll(async () => {
  h = await startEngineHarness();
  dynamoDb = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
});
afterAll(async () => {
  dynamoDb.destroy();
  await h.close();
});

/** Refuses the first `failures` publish calls, as an EventBridge outage would. */
function flaky(inner: EventPublisher, failures: number): EventPublisher {
  let left = failures;
  return {
    async publish(events) {
      if (left-- > 0) throw new Error('EventBridge unavailable');
      await inner.publish(events);
    },
  };
}

describe('domain events from the table stream', () => {
  it('publishes one event per outcome, in order, and none for intermediate states; an outage delays but loses none', async () => {
    const bus = new InProcessEventBus();
    const received: DomainEvent[] = [];
    bus.subscribe((event) => {
      if (isPayoutEvent(event)) received.push(event);
    });
    const relay = await StreamRelay.forTable(
      dynamoDb,
      inject('dynamoDbEndpoint'),
      h.tableName,
      flaky(bus, 2),
      h.logger,
    );

    const { payout: paid } = await h.engine.create(command(bankTransfer(10_000), 'events-paid'));
    await h.engine.submit(paid.id);
    const { payout: refused } = await h.engine.create(
      command(
        {
          type: 'child_debit',
          amount: 5_000_000,
          currency: 'NGN',
          narration: 'too much',
          childAccountId: h.fixtures.childAccounts[2]?.id ?? '',
        },
        'events-refused',
      ),
    );
    await h.engine.submit(refused.id);
    const { payout: cancelled } = await h.engine.create(command(bankTransfer(10_000), 'events-cancelled'));
    await h.engine.cancel(cancelled.id, { id: 'bob', kind: 'user' });

    // The first two polls hit the outage; the relay resumes from the first unpublished record.
    for (let poll = 0; poll < 5; poll++) await relay.pollOnce().catch(() => 0);
    await relay.stop();

    const ids = received.map((event) => event.detail.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(received.map((event) => [event.detail.payoutId, event.detailType])).toEqual([
      [paid.id, 'Payout Succeeded'],
      [refused.id, 'Payout Failed'],
    ]);
    expect(received[0]?.detail).toMatchObject({
      amountKobo: 10_000,
      idempotencyKey: 'events-paid',
      version: '1',
    });
    expect(received[0]?.detail.receipt?.transactionId).toBeTruthy();
    expect(received[1]?.detail.failure?.code).toBe('PROVIDER_422');
    expect(JSON.stringify(received)).not.toContain(h.sandbox.pin);
    expect(JSON.stringify(received)).not.toContain(h.sandbox.token);
  });

  it('stops starting records at its stop instant and hands the rest back, which the next invocation publishes', async () => {
    // Five succeeded payouts as the stream shows them (a MODIFY into `succeeded`, sequence numbers 1-5).
    const records = [];
    for (let n = 1; n <= 5; n++) {
      const { payout } = await h.engine.create(command(bankTransfer(10_000), `events-budget-${n}`));
      await h.engine.submit(payout.id);
      const paid = await h.store.get(payout.id);
      expect(paid?.status).toBe('succeeded');
      records.push({
        eventName: 'MODIFY',
        dynamodb: {
          SequenceNumber: String(n),
          NewImage: marshall(toPayoutItem(paid as NonNullable<typeof paid>), { removeUndefinedValues: true }),
          OldImage: marshall({ entity: 'payout', status: 'submitting' }),
        },
      });
    }
    const bus = new InProcessEventBus();
    const received: string[] = [];
    bus.subscribe((event) => {
      if (isPayoutEvent(event)) received.push(event.detail.payoutId);
    });
    // An injected clock: each publish takes 10 s, and the stop instant is 25 s in, so three start.
    let clock = 0;
    const slow: EventPublisher = {
      async publish(events) {
        clock += 10_000;
        await bus.publish(events);
      },
    };
    const first = await publishStreamBatch(records, slow, h.logger, {
      stopStartingAt: 25_000,
      now: () => clock,
    });
    expect(first).toEqual({ failedSequenceNumbers: ['4', '5'], published: 3 });
    // Lambda's partial batch response: the stream's next invocation starts at the first record handed back.
    const rest = records.filter((record) =>
      first.failedSequenceNumbers.includes(record.dynamodb.SequenceNumber),
    );
    const second = await publishStreamBatch(rest, slow, h.logger, {
      stopStartingAt: clock + 25_000,
      now: () => clock,
    });
    expect(second).toEqual({ failedSequenceNumbers: [], published: 2 });
    expect(received).toHaveLength(5);
    expect(new Set(received).size).toBe(5);
  });
});

/** The stream's record of a payout moving from `before` to `after`, full images as DynamoDB writes them. */
const change = (before: Payout, after: Payout) => ({
  eventName: 'MODIFY' as const,
  dynamodb: {
    SequenceNumber: '1',
    OldImage: marshall(toPayoutItem(before), { removeUndefinedValues: true }),
    NewImage: marshall(toPayoutItem(after), { removeUndefinedValues: true }),
  },
});

describe('a double payment as a domain event', () => {
  it('is published as Payout Paid Twice by the change that found it, and never again by a later review', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(10_000), 'events-paid-twice'));
    await h.engine.submit(payout.id);
    const paid = (await h.store.get(payout.id)) as Payout;
    const paidTwice = { attempts: [1, 2], transactionIds: ['tx-1', 'tx-2'] };
    const found: Payout = { ...paid, status: PayoutStatus.NeedsReview, paidTwice };
    expect(domainEventOf(change(paid, found))?.detailType).toBe('Payout Paid Twice');

    // Resolved, then handed to a person again for another reason: paidTwice is still on the payout.
    const resolved: Payout = { ...found, status: PayoutStatus.Succeeded };
    const reviewedAgain: Payout = { ...resolved, status: PayoutStatus.NeedsReview };
    expect(domainEventOf(change(resolved, reviewedAgain))?.detailType).toBe('Payout Needs Review');

    // A further attempt found paid changes the record of the double: published again.
    const thrice: Payout = {
      ...reviewedAgain,
      paidTwice: { attempts: [1, 2, 3], transactionIds: ['tx-1', 'tx-2', 'tx-3'] },
    };
    expect(domainEventOf(change(resolved, thrice))?.detailType).toBe('Payout Paid Twice');
  });
});

describe("a payout's events carry its correlation id and trace", () => {
  it('names the correlation id and traceparent of the request that created it, and hands the trace to EventBridge in X-Ray form', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const { payout } = await h.engine.create({
      ...command(bankTransfer(10_000), 'events-traced'),
      correlationId: 'req-7f3a',
      traceparent,
    });
    await h.engine.submit(payout.id);
    const paid = (await h.store.get(payout.id)) as Payout;
    const event = domainEventOf(change(payout, paid));
    expect(event?.detail).toMatchObject({ payoutId: payout.id, correlationId: 'req-7f3a', traceparent });
    const [entry] = putEventsInput(event ? [event] : [], 'bus').Entries;
    expect(entry?.TraceHeader).toBe(
      'Root=1-4bf92f35-77b34da6a3ce929d0e0e4736;Parent=00f067aa0ba902b7;Sampled=1',
    );
  });

  it('gives EventBridge no trace header for an event without one, or with a traceparent it cannot read', () => {
    expect(xrayTraceHeaderOf(undefined)).toBeUndefined();
    expect(xrayTraceHeaderOf('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBeUndefined();
    expect(xrayTraceHeaderOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')).toMatch(
      /;Sampled=0$/,
    );
  });
});

describe("a statement's findings", () => {
  const lineItem = (kind: string, key: string) => ({
    pk: 'STATEMENT#2026-12-01',
    sk: `LINE#${kind}#${key}`,
    entity: 'statement_line',
    runAt: '2026-12-02T05:00:00.000Z',
    firstSeenAt: '2026-12-02T05:00:00.000Z',
    line: {
      kind,
      key,
      transactionId: key,
      amountKobo: 2_500_000,
      destination: '058/0123456789',
      detail: 'a debit the provider lists that no payout of ours explains',
    },
  });
  const written = (eventName: 'INSERT' | 'MODIFY', item: Record<string, unknown>) => ({
    eventName,
    dynamodb: {
      SequenceNumber: '1',
      NewImage: marshall(item, { removeUndefinedValues: true }),
      ...(eventName === 'MODIFY' && { OldImage: marshall(item, { removeUndefinedValues: true }) }),
    },
  });

  it('publishes a Statement Mismatch when a finding is first written, and nothing when a re-run writes it again or the line matched', () => {
    const foreign = lineItem('provider_not_ours', 'TXN-FOREIGN-1');
    const event = publishedEventOf(written('INSERT', foreign));
    expect(event).toEqual({
      detailType: 'Statement Mismatch',
      detail: {
        version: '1',
        eventId: 'statement:2026-12-01:provider_not_ours:TXN-FOREIGN-1',
        date: '2026-12-01',
        kind: 'provider_not_ours',
        key: 'TXN-FOREIGN-1',
        transactionId: 'TXN-FOREIGN-1',
        amountKobo: 2_500_000,
        detail: 'a debit the provider lists that no payout of ours explains',
        occurredAt: '2026-12-02T05:00:00.000Z',
      },
    });
    expect(StatementMismatchDetailSchema.safeParse(event?.detail).success).toBe(true);
    // The day run again: the same finding rewritten is not news.
    expect(
      publishedEventOf(written('MODIFY', { ...foreign, runAt: '2026-12-02T06:00:00.000Z' })),
    ).toBeUndefined();
    expect(publishedEventOf(written('INSERT', lineItem('matched', 'TXN-OURS-1')))).toBeUndefined();
  });
});
