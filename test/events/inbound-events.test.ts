import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DynamoDbDeadLetterStore,
  InMemoryDeadLetterSink,
  withDeadLetter,
} from '../../lib/events/dead-letter.js';
import { InvalidEventError } from '../../lib/events/inbound-errors.js';
import { handlePayoutRequested, handleSettlementAvailable } from '../../lib/events/inbound-handlers.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { approvePayout } from '../../lib/payouts/engine/payout-commands.js';
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
        const sink = new InMemoryDeadLetterSink();
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
    const sink = new InMemoryDeadLetterSink();
    const handle = withDeadLetter(payoutRequestedFunction, sink, h.clock);
    const outcome = await handle(
      payoutRequested('evt-r2', validDetail({ idempotencyKey: 'reused-key', payout: bankTransfer(300_000) })),
    );
    expect(outcome).toMatchObject({ deadLettered: true });
    expect(sink.letters[0]?.error.issues[0]?.path).toBe('detail.idempotencyKey');
    expect(ledgerEntriesOf(h.sandbox, first.payoutId)).toHaveLength(1);
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
    const sink = new InMemoryDeadLetterSink();
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
