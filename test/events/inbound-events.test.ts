import { randomBytes } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DEAD_LETTER_ISSUES,
  type DeadLettered,
  DynamoDbDeadLetterStore,
  InMemoryDeadLetterStore,
  withDeadLetter,
} from '../../lib/events/dead-letters/index.js';
import { InvalidEventError } from '../../lib/events/inbound-errors.js';
import { handlePayoutRequested, handleSettlementAvailable } from '../../lib/events/inbound-handlers.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { approvePayout } from '../../lib/payouts/engine/payout-commands.js';
import { itemBytes } from '../../lib/shared/item-size.js';
import {
  instantPayoutsFor,
  newSettlement,
  seededSettlement,
  settlementServiceFor,
} from '../settlement/support.js';
import {
  bankTransfer,
  type EngineHarness,
  ledgerEntriesOf,
  startEngineHarness,
} from '../support/engine-harness.js';
import { replaceMethod } from '../support/replace-method.js';
import { type HarnessWorkers, startHarnessWorkers } from '../support/submission-workers.js';
import { payoutRequested } from './support.js';

/**
 * The rule's target, with its AWS calls checked against the `settlement-available` function's role: as deployed,
 * it hands the payout to the submission workers.
 */
const settlementAvailableFunction = (
  service: Parameters<typeof handleSettlementAvailable>[0],
  event: unknown,
  workers: HarnessWorkers,
) =>
  servedBy('settlement-available', () =>
    handleSettlementAvailable(service, event, { by: 'queue', queue: workers.submissions }),
  );

const validDetail = (overrides: Record<string, unknown> = {}) => ({
  version: '1',
  payout: bankTransfer(250_000, { narration: 'invoice 2041' }),
  ...overrides,
});

describe('Payout Requested events', () => {
  let h: EngineHarness;
  let dynamoDb: DynamoDBClient;
  /** The rule's target, with its AWS calls checked against the `payout-requested` function's role. */
  const payoutRequestedFunction = (event: unknown) =>
    servedBy('payout-requested', () => handlePayoutRequested(h.engine, event));

  beforeAll(async () => {
    h = await startEngineHarness();
    dynamoDb = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
  });
  afterAll(async () => {
    dynamoDb.destroy();
    await h.close();
  });

  async function tableItems() {
    const { Items } = await dynamoDb.send(new ScanCommand({ TableName: h.tableName }));
    return Items ?? [];
  }

  it('pays once when the same event is delivered three times concurrently', async () => {
    const event = payoutRequested('evt-concurrent-1', validDetail());
    const outcomes = await Promise.all([1, 2, 3].map(() => payoutRequestedFunction(event)));
    const ids = new Set(outcomes.map((outcome) => outcome.payoutId));
    expect(ids.size).toBe(1);
    expect(outcomes.filter((outcome) => !outcome.replayed)).toHaveLength(1);
    const [payoutId] = [...ids];
    expect(ledgerEntriesOf(h.sandbox, payoutId ?? '')).toHaveLength(1);
    expect(await h.engine.get(payoutId ?? '')).toMatchObject({
      status: 'succeeded',
      origin: 'event',
      idempotencyKey: 'evt-concurrent-1',
    });
  });

  it("a payout requested by an event keeps a correlation id derived from the event's id, on its record and its log lines", async () => {
    const event = payoutRequested('evt-correlated-1', validDetail());
    const { payoutId } = await payoutRequestedFunction(event);
    expect(await h.engine.get(payoutId)).toMatchObject({ correlationId: 'evt:evt-correlated-1' });
    const lines = h.logger.entries.filter((entry) => entry.fields?.payoutId === payoutId);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.fields).toMatchObject({ correlationId: 'evt:evt-correlated-1' });
  });

  it('pays once when the event is redelivered later', async () => {
    const event = payoutRequested('evt-redelivered-1', validDetail());
    const first = await payoutRequestedFunction(event);
    const again = await payoutRequestedFunction(event);
    expect(again).toEqual({ ...first, replayed: true });
    expect(ledgerEntriesOf(h.sandbox, first.payoutId)).toHaveLength(1);
  });

  it('keys the payout by detail.idempotencyKey when given, across different event ids', async () => {
    const detail = validDetail({ idempotencyKey: 'billing-inv-77', requestedBy: 'billing-service' });
    const a = await payoutRequestedFunction(payoutRequested('evt-a', detail));
    const b = await payoutRequestedFunction(payoutRequested('evt-b', detail));
    expect(b.payoutId).toBe(a.payoutId);
    expect(await h.engine.get(a.payoutId)).toMatchObject({
      idempotencyKey: 'billing-inv-77',
      requestedBy: { id: 'system:event:merchant.payouts', kind: 'system' },
    });
    const { audit } = await h.getWithAudit(a.payoutId);
    expect(audit[0]?.details).toMatchObject({ statedRequester: 'billing-service' });
  });

  it('an event naming alice as its requester above the threshold waits for a person; the producer can never approve', async () => {
    const amount = h.engine.ctx.config.approvalThresholdKobo;
    const detail = validDetail({
      requestedBy: 'alice',
      payout: bankTransfer(amount, { narration: 'big one' }),
    });
    const outcome = await payoutRequestedFunction(payoutRequested('evt-from-alice', detail));
    expect(outcome.status).toBe('pending_approval');
    expect(ledgerEntriesOf(h.sandbox, outcome.payoutId)).toHaveLength(0);
    await expect(
      approvePayout(h.engine.ctx, outcome.payoutId, { id: 'system:event:merchant.payouts', kind: 'system' }),
    ).rejects.toMatchObject({ code: 'APPROVAL_FORBIDDEN' });
    await expect(
      approvePayout(h.engine.ctx, outcome.payoutId, { id: 'SYSTEM:EVENT:merchant.payouts', kind: 'user' }),
    ).rejects.toMatchObject({ code: 'APPROVAL_FORBIDDEN' });
    const approved = await approvePayout(h.engine.ctx, outcome.payoutId, { id: 'alice', kind: 'user' });
    expect(approved).toMatchObject({ status: 'pending', approvedBy: { id: 'alice', kind: 'user' } });
  });

  describe('malformed events', () => {
    const cases: [string, EventBridgeEvent<string, unknown>, string][] = [
      [
        'an account number that is not 10 digits',
        payoutRequested(
          'bad-1',
          validDetail({
            payout: {
              ...bankTransfer(250_000),
              beneficiary: { bankCode: '058', accountNumber: '123', accountName: 'Ada' },
            },
          }),
        ),
        'detail.payout.beneficiary.accountNumber',
      ],
      [
        'a fractional amount',
        payoutRequested('bad-2', validDetail({ payout: bankTransfer(2500.5) })),
        'detail.payout.amount',
      ],
      ['an unknown version', payoutRequested('bad-3', validDetail({ version: '2' })), 'detail.version'],
      ['an unknown field', payoutRequested('bad-4', validDetail({ priority: 'high' })), 'detail.priority'],
      ['a missing payout', payoutRequested('bad-5', { version: '1' }), 'detail.payout'],
      [
        'a wrong detail-type',
        payoutRequested('bad-6', validDetail(), { 'detail-type': 'Settlement Available' }),
        'detail-type',
      ],
      ['a foreign source', payoutRequested('bad-7', validDetail(), { source: 'someone.else' }), 'source'],
      [
        'an amount above the engine maximum',
        payoutRequested('bad-8', validDetail({ payout: bankTransfer(900_000_000) })),
        'detail.payout.amount',
      ],
    ];

    it.each(cases)(
      'dead-letters %s with an error naming the field, and creates nothing',
      async (_name, event, field) => {
        const before = await tableItems();
        const requestsBefore = h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
        const sink = new InMemoryDeadLetterStore();
        const handle = withDeadLetter(payoutRequestedFunction, sink, h.clock);

        const outcome = await handle(event);

        expect(outcome).toMatchObject({ deadLettered: true, error: { code: 'INVALID_EVENT' } });
        expect(sink.letters).toHaveLength(1);
        expect(sink.letters[0]?.event).toEqual(event);
        expect(sink.letters[0]?.error.issues.map((issue) => issue.path)).toContain(field);
        expect(sink.letters[0]?.error.message).toContain(field);
        expect(await tableItems()).toHaveLength(before.length);
        expect(h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0).toBe(requestsBefore);
      },
    );
  });

  it('throws InvalidEventError without a dead-letter wrapper (AWS: the Lambda on-failure destination)', async () => {
    await expect(payoutRequestedFunction(payoutRequested('bad-9', { version: '1' }))).rejects.toBeInstanceOf(
      InvalidEventError,
    );
  });

  it('dead-letters a key reused for a different payout without touching the first', async () => {
    const detail = validDetail({ idempotencyKey: 'reused-key' });
    const first = await payoutRequestedFunction(payoutRequested('evt-r1', detail));
    const sink = new InMemoryDeadLetterStore();
    const handle = withDeadLetter(payoutRequestedFunction, sink, h.clock);
    const outcome = await handle(
      payoutRequested('evt-r2', validDetail({ idempotencyKey: 'reused-key', payout: bankTransfer(300_000) })),
    );
    expect(outcome).toMatchObject({ deadLettered: true });
    expect(sink.letters[0]?.error.issues[0]?.path).toBe('detail.idempotencyKey');
    expect(ledgerEntriesOf(h.sandbox, first.payoutId)).toHaveLength(1);
  });

  describe('whatever an invalid event holds, it becomes a dead letter in the table, never a thrown error', () => {
    /** DynamoDB's largest item, names and values. */
    const ITEM_MAX_BYTES = 400 * 1024;

    /** Delivers `event` as the rule's target does, into the table's dead letters; answers the outcome. */
    async function deliver(event: unknown, client: DynamoDBClient = dynamoDb) {
      const store = new DynamoDbDeadLetterStore(client, h.tableName);
      const outcome = (await withDeadLetter(
        payoutRequestedFunction,
        store,
        h.clock,
      )(event)) as Partial<DeadLettered>;
      expect(outcome).toMatchObject({ deadLettered: true });
      const letter = await new DynamoDbDeadLetterStore(dynamoDb, h.tableName).get(outcome.id ?? '');
      const { Item } = await dynamoDb.send(
        new GetItemCommand({
          TableName: h.tableName,
          Key: { pk: { S: `DEAD_LETTER#${outcome.id}` }, sk: { S: 'LETTER' } },
        }),
      );
      return { outcome, letter, item: unmarshall(Item ?? {}) };
    }

    /** Everything in the table but dead letters: what an invalid event must not have created. */
    async function notLetters() {
      return (await tableItems()).filter((item) => item.entity?.S !== 'dead-letter').length;
    }

    async function expectListedOpen(id: string | undefined) {
      const { items } = await new DynamoDbDeadLetterStore(dynamoDb, h.tableName).list({
        status: 'open',
        limit: 100,
      });
      expect(items.map((item) => item.id)).toContain(id);
    }

    it('an amount of 1e16 (above 2^53, which the marshaller refuses) is listed with the field, the event exact', async () => {
      const before = await notLetters();
      const event = payoutRequested('evt-1e16', validDetail({ payout: bankTransfer(1e16) }));
      const { outcome, letter } = await deliver(event);
      expect(outcome.error?.issues.map((issue) => issue.path)).toContain('detail.payout.amount');
      await expectListedOpen(outcome.id);
      expect(letter?.event).toEqual(event);
      expect(await notLetters()).toBe(before);
    });

    it('an event nested 40 levels deep (DynamoDB holds maps 32 deep) or holding 1e-200 is listed, the event exact', async () => {
      let nested: unknown = 'leaf';
      for (let level = 0; level < 40; level++) nested = { level: nested };
      for (const event of [
        payoutRequested('evt-deep', validDetail({ nested })),
        payoutRequested('evt-tiny', validDetail({ tiny: 1e-200 })),
      ]) {
        const { outcome, letter } = await deliver(event);
        await expectListedOpen(outcome.id);
        expect(letter?.event).toEqual(event);
      }
    });

    /** A bank reference sent as a JSON number: 20 digits, which no double holds exactly. */
    const BANK_REF = JSON.parse('12345678901234567890') as number;

    it('a metadata number above 2^53 is refused as the field, not retried onto the queue: a dead letter, nothing created', async () => {
      const before = await notLetters();
      const requests = JSON.stringify(h.sandbox.stats().requests);
      const event = payoutRequested(
        'evt-bank-ref',
        validDetail({ payout: bankTransfer(250_000, { metadata: { bankRef: BANK_REF } }) }),
      );
      const { outcome, letter } = await deliver(event);
      expect(outcome.error?.issues.map((issue) => issue.path)).toContain('detail.payout.metadata.bankRef');
      await expectListedOpen(outcome.id);
      expect(letter?.event).toEqual(event);
      expect(await notLetters()).toBe(before);
      expect(JSON.stringify(h.sandbox.stats().requests)).toBe(requests);
    });

    it('a 225 KB event with 9,000 unknown fields fits in one item: the event whole, the error clipped', async () => {
      const unknown = Object.fromEntries(
        Array.from({ length: 9_000 }, (_, i) => [`unknownField${String(i).padStart(4, '0')}`, 'xxx']),
      );
      const event = payoutRequested('evt-225kb', validDetail(unknown));
      expect(Buffer.byteLength(JSON.stringify(event))).toBeGreaterThan(225_000);
      expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThan(256 * 1024);

      const { outcome, letter, item } = await deliver(event);
      expect(itemBytes(item)).toBeLessThan(ITEM_MAX_BYTES);
      await expectListedOpen(outcome.id);
      expect(letter?.event).toEqual(event);
      expect(letter?.eventTooLarge).toBeUndefined();
      // The key list, once in the issue and once in the message, clipped in both.
      expect(letter?.error.message.length).toBeLessThanOrEqual(1_000);
      expect(letter?.error.message.endsWith('…')).toBe(true);
      expect(letter?.error.issues).toEqual([
        { path: 'detail.unknownField0000', message: expect.stringMatching(/^unknown field\(s\): .*…$/) },
      ]);
      expect(letter?.error.issues[0]?.message.length).toBe(500);
    });

    it('an event with thousands of wrong fields keeps the first 50 and says how many were left out', async () => {
      // Each metadata key not a plain name is an issue of its own.
      const metadata = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`${i}bad`, 1]));
      const event = payoutRequested(
        'evt-many-issues',
        validDetail({ payout: bankTransfer(250_000, { metadata }) }),
      );
      const { outcome, letter } = await deliver(event);
      await expectListedOpen(outcome.id);
      expect(letter?.event).toEqual(event);
      const error = letter?.error;
      expect(error?.issues).toHaveLength(DEAD_LETTER_ISSUES);
      expect(error?.issues[0]?.path).toBe('detail.payout.metadata.0bad');
      expect(error?.issuesOmitted).toBeGreaterThanOrEqual(3_000 - DEAD_LETTER_ISSUES);
      expect(error?.message.length).toBeLessThanOrEqual(1_000);
      expect(error?.message).toMatch(
        new RegExp(`\\(${DEAD_LETTER_ISSUES + (error?.issuesOmitted ?? 0)} issues; the first 50 kept\\)$`),
      );
      expect(outcome.error).toEqual(error);
    });

    it('an event whose JSON grows when written again (1e20 is written as 21 digits) is kept whole, gzipped', async () => {
      // 225 KB as sent; over 1 MB as JSON.stringify writes it, more than an item holds as a string.
      const event = payoutRequested(
        'evt-grows',
        validDetail({ figures: Array.from({ length: 45_000 }, () => 1e20) }),
      );
      expect(Buffer.byteLength(JSON.stringify(event))).toBeGreaterThan(ITEM_MAX_BYTES);
      const { outcome, letter, item } = await deliver(event);
      expect(item.eventJsonGzip).toBeInstanceOf(Uint8Array);
      expect(itemBytes(item)).toBeLessThan(ITEM_MAX_BYTES);
      await expectListedOpen(outcome.id);
      expect(letter?.event).toEqual(event);
    });

    it('an event larger than any item is kept as a smaller letter: its id, type, size and start, not replayable', async () => {
      // Not something EventBridge delivers (256 KB): a local caller's, or a size the estimate got wrong.
      // 600 KB of base64 noise, which gzip brings down to no less than 450 KB.
      const event = payoutRequested(
        'evt-too-large',
        validDetail({ noise: randomBytes(450_000).toString('base64') }),
      );
      const bytes = Buffer.byteLength(JSON.stringify(event));
      const { outcome, letter, item } = await deliver(event);
      expect(itemBytes(item)).toBeLessThan(64 * 1024);
      expect(item).toMatchObject({ replayable: false, eventBytes: bytes, eventId: 'evt-too-large' });
      await expectListedOpen(outcome.id);
      expect(letter).toMatchObject({
        detailType: 'Payout Requested',
        eventTooLarge: { bytes, eventId: 'evt-too-large' },
      });
      expect(letter?.event).toBe(`${JSON.stringify(event).slice(0, 999)}…`);
      expect(letter?.error.issues.map((issue) => issue.path)).toContain('detail.noise');
    });

    it('when DynamoDB finds the letter too large after all, it keeps the smaller letter instead of throwing', async () => {
      // A fault DynamoDB Local cannot be made to produce for an item under 400 KB: our estimate of the size low.
      let refused = 0;
      const strictSizes = replaceMethod(dynamoDb, 'send', (async (command: unknown, ...rest: unknown[]) => {
        if (command instanceof PutItemCommand && command.input.Item?.eventJson && refused++ === 0) {
          throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
            name: 'ValidationException',
          });
        }
        return (dynamoDb.send as (...args: unknown[]) => Promise<unknown>).call(dynamoDb, command, ...rest);
      }) as DynamoDBClient['send']);
      const event = payoutRequested('evt-refused-size', validDetail({ version: '9' }));
      const { outcome, letter } = await deliver(event, strictSizes);
      expect(refused).toBe(1);
      await expectListedOpen(outcome.id);
      expect(letter).toMatchObject({ eventTooLarge: { eventId: 'evt-refused-size' } });
      expect(letter?.error.issues[0]?.path).toBe('detail.version');
    });
  });

  it('keeps dead letters in the table, open, with the event type a replay goes to', async () => {
    const store = new DynamoDbDeadLetterStore(dynamoDb, h.tableName);
    const handle = withDeadLetter(payoutRequestedFunction, store, h.clock);
    const outcome = await handle(payoutRequested('bad-local', validDetail({ version: '9' })));
    const { items } = await store.list({ status: 'open', limit: 50 });
    const letter = items.find((item) => 'id' in outcome && item.id === outcome.id);
    expect(letter).toMatchObject({ status: 'open', detailType: 'Payout Requested', actions: [] });
    expect(letter?.error.issues[0]?.path).toBe('detail.version');
  });
});

describe('Settlement Available events', () => {
  let h: EngineHarness;
  let workers: HarnessWorkers;

  beforeAll(async () => {
    h = await startEngineHarness();
    workers = await startHarnessWorkers(h);
  });
  afterAll(async () => {
    await workers.stop();
    await h.close();
  });

  const settlementAvailable = (id: string, detail: Record<string, unknown>) => ({
    version: '0',
    id,
    'detail-type': 'Settlement Available',
    source: 'merchant.payouts',
    account: '123456789012',
    time: '2026-03-02T08:00:00Z',
    region: 'eu-west-1',
    resources: [],
    detail,
  });

  it('pays the settlement once, whether the event races the ops call and the poll or arrives again', async () => {
    const wired = settlementServiceFor(h);
    const settlement = await seededSettlement(h, 'MERCHANT_SETTLEMENT', 'SUCCESSFUL');
    const event = settlementAvailable('evt-s1', { version: '1', settlementId: settlement.id });
    // Each trigger as deployed: the event and the poll hand the payout to the workers, the ops call sends it.
    await Promise.all([
      settlementAvailableFunction(wired.service, event, workers),
      settlementAvailableFunction(wired.service, event, workers),
      servedBy('api-settlements', () =>
        wired.service.payOut(settlement.id, 'api', { id: 'alice', kind: 'user' }),
      ),
      servedBy('poll-settlements', () => wired.service.poll(undefined, undefined, workers.submissions)),
    ]);
    await workers.idle();
    expect(instantPayoutsFor(h, settlement.id)).toHaveLength(1);
    wired.dynamoDb.destroy();
  });

  it('hands the payout to the submission workers, which pay it once however often the event arrives', async () => {
    const wired = settlementServiceFor(h);
    const settlementId = await newSettlement(h);
    const before = h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
    const event = settlementAvailable('evt-s3', { version: '1', settlementId });
    const first = await settlementAvailableFunction(wired.service, event, workers);
    // The function itself sent nothing: its payout was created pending and handed over.
    expect(first).toMatchObject({ outcome: 'paid', payout: { status: 'pending' } });
    const payoutId = first.outcome === 'paid' ? first.decision.payoutId : undefined;
    expect(payoutId).toBeDefined();
    await workers.idle();
    // Delivered again after the workers paid it: the decision holds, and nothing is sent again.
    const again = await settlementAvailableFunction(wired.service, event, workers);
    await workers.idle();
    expect(again).toMatchObject({ outcome: 'paid', decision: { payoutId } });
    expect(instantPayoutsFor(h, settlementId)).toHaveLength(1);
    expect((h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0) - before).toBe(1);
    expect((await h.engine.get(payoutId ?? ''))?.status).toBe('succeeded');
    wired.dynamoDb.destroy();
  });

  it('dead-letters an event without a settlement id, before any provider call', async () => {
    const wired = settlementServiceFor(h);
    const before = h.sandbox.stats().requests['/settlement'] ?? 0;
    const sink = new InMemoryDeadLetterStore();
    const handle = withDeadLetter(
      (e: unknown) => settlementAvailableFunction(wired.service, e, workers),
      sink,
      h.clock,
    );
    const outcome = await handle(settlementAvailable('evt-s2', { version: '1', settlementId: '' }));
    expect(outcome).toMatchObject({ deadLettered: true });
    expect(sink.letters[0]?.error.message).toContain('detail.settlementId');
    expect(h.sandbox.stats().requests['/settlement'] ?? 0).toBe(before);
    wired.dynamoDb.destroy();
  });
});
