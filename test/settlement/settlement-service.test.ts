import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { SubmissionQueueError, type SubmissionRequest } from '../../lib/payouts/queue/submission-queue.js';
import { Settlements } from '../../lib/provider/resources/settlements.js';
import { addSettlement } from '../../lib/sandbox/index.js';
import { FIRST_LOOK_SIZE } from '../../lib/settlement/settlement-lookup.js';
import { createDynamoDbClient } from '../../lib/shared/dynamodb-client.js';
import { NotFoundError } from '../../lib/shared/errors.js';
import { alice, type EngineHarness, startEngineHarness } from '../support/engine-harness.js';
import { startHarnessWorkers } from '../support/submission-workers.js';
import {
  destination,
  idempotencyItems,
  instantPayoutsFor,
  newSettlement,
  seededSettlement,
  settlementServiceFor,
} from './support.js';

const ops = alice;
const system = { id: 'system:test', kind: 'system' } as const;

describe('SettlementService', () => {
  let h: EngineHarness;

  beforeAll(async () => {
    h = await startEngineHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  // Tests that need a clean provider and table start a harness of their own.

  describe('turning instant settlement on pays out history (cutoff)', () => {
    it('pays none of the settlements created before it was first turned on, records each as BEFORE_CUTOFF, and keeps that cutoff across containers', async () => {
      const own = await startEngineHarness();
      const first = settlementServiceFor(own, { since: undefined });
      const enabledAt = own.clock.now().toISOString();
      const report = await first.service.poll();
      expect(report).toMatchObject({ paid: 0, failed: 0 });
      expect(report.skipped).toBe(report.examined);
      expect(report.examined).toBeGreaterThan(0);
      const old = await seededSettlement(own, 'MERCHANT_SETTLEMENT', 'SUCCESSFUL');
      expect(await first.service.decision(old.id)).toMatchObject({
        decision: 'skipped',
        code: 'BEFORE_CUTOFF',
      });
      expect(instantPayoutsFor(own, old.id)).toHaveLength(0);
      // A later container (new service, later clock) finds the recorded cutoff rather than its own "now".
      own.clock.advance(24 * 60 * 60_000);
      const later = settlementServiceFor(own, { since: undefined });
      expect(await later.service.cutoff()).toBe(enabledAt);
      first.dynamoDb.destroy();
      later.dynamoDb.destroy();
      await own.close();
    });

    it('reads the recorded cutoff while the provider looks the settlement up, not after, and no decision first: no round trip of its own', async () => {
      const own = await startEngineHarness();
      try {
        // Recorded by an earlier container, as in any deployment after its first trigger.
        const earlier = settlementServiceFor(own, { since: undefined });
        const enabledAt = await earlier.service.cutoff();
        earlier.dynamoDb.destroy();
        own.clock.advance(60_000);
        const settlement = await newSettlement(own);

        // The provider answers the look-up only once the test lets it; meanwhile the reads are counted.
        let answer = () => {};
        const answered = new Promise<void>((resolve) => {
          answer = resolve;
        });
        const settlements = new (class extends Settlements {
          override async list(...args: Parameters<Settlements['list']>) {
            await answered;
            return super.list(...args);
          }
        })(own.client.connection.requester);
        const wired = settlementServiceFor(own, { since: undefined }, { provider: { settlements } });
        const reads: unknown[] = [];
        wired.dynamoDb.middlewareStack.add(
          (next, context) => async (args) => {
            const output = await next(args);
            // The client's command carries the key as DynamoDB types: read back as plain values.
            const { Key } = args.input as { Key?: Record<string, AttributeValue> };
            if (context.commandName === 'GetItemCommand' && Key) reads.push(unmarshall(Key));
            return output;
          },
          { step: 'initialize', name: 'countReads' },
        );

        const paying = wired.service.payOut(settlement, 'event', system);
        await vi.waitFor(() => expect(reads).toHaveLength(1), { timeout: 5_000 });
        answer();

        expect(await paying).toMatchObject({ outcome: 'paid' });
        // The cutoff answered before the listing, and nothing was read after it: not the decision either, which a
        // first trigger finds absent (a repeated one is answered by the writes, the tests below).
        expect(reads).toEqual([{ pk: 'SETTLEMENT_CONFIG', sk: 'ENABLED_SINCE' }]);
        expect(await wired.service.cutoff()).toBe(enabledAt);
        wired.dynamoDb.destroy();
      } finally {
        await own.close();
      }
    });

    it('answers with the failure when its read of the cutoff fails before it is sent (no credentials), and pays nothing', async () => {
      const own = await startEngineHarness();
      const dynamoDb = createDynamoDbClient({
        endpoint: inject('dynamoDbEndpoint'),
        region: localAwsConfig.region,
        credentials: () => Promise.reject(new Error('no credentials here')),
      });
      try {
        const settlement = await newSettlement(own);
        const wired = settlementServiceFor(own, { since: undefined }, { dynamoDb });
        // The read fails before it is sent: a trigger that waited only for it to be sent would wait for ever.
        await expect(wired.service.payOut(settlement, 'event', system)).rejects.toThrow(
          'no credentials here',
        );
        expect(instantPayoutsFor(own, settlement)).toHaveLength(0);
      } finally {
        dynamoDb.destroy();
        await own.close();
      }
    });

    it('pays a settlement created at or after an explicit settlement.since, and skips one created before it', async () => {
      const own = await startEngineHarness();
      const merchant = await seededSettlement(own, 'MERCHANT_SETTLEMENT', 'SUCCESSFUL');
      const card = await seededSettlement(own, 'CARD_SETTLEMENT', 'SUCCESSFUL');
      expect(Date.parse(merchant.createdAt)).toBeLessThan(Date.parse(card.createdAt));
      const wired = settlementServiceFor(own, { since: card.createdAt });
      const beforeCutoff = await wired.service.payOut(merchant.id, 'api', ops);
      const atCutoff = await wired.service.payOut(card.id, 'api', ops);
      expect(beforeCutoff).toMatchObject({ outcome: 'skipped', decision: { code: 'BEFORE_CUTOFF' } });
      expect(atCutoff.outcome).toBe('paid');
      expect(instantPayoutsFor(own, merchant.id)).toHaveLength(0);
      expect(instantPayoutsFor(own, card.id)).toHaveLength(1);
      wired.dynamoDb.destroy();
      await own.close();
    });
  });

  it('pays one SUCCESSFUL settlement once when event, ops call and poll race for it', async () => {
    const wired = settlementServiceFor(h);
    const settlement = await seededSettlement(h, 'MERCHANT_SETTLEMENT', 'SUCCESSFUL');

    const [byEvent, byApi, byPoll] = await Promise.all([
      wired.service.payOut(settlement.id, 'event', system),
      wired.service.payOut(settlement.id, 'api', ops),
      wired.service.poll(),
    ]);

    const payouts = instantPayoutsFor(h, settlement.id);
    expect(payouts).toHaveLength(1);
    expect(payouts[0]?.amount).toBe(settlement.amount);
    expect(payouts[0]?.metadata).toMatchObject({
      isInstantSettlement: true,
      isMerchantSettlement: true,
      settlementId: settlement.id,
    });
    expect(byEvent.outcome).toBe('paid');
    expect(byApi.outcome).toBe('paid');
    expect(byPoll.failed).toBe(0);
    const decision = await wired.service.decision(settlement.id);
    expect(decision).toMatchObject({ decision: 'paid', amountKobo: 12_000_000 });
    const payout = await h.engine.get(decision?.payoutId ?? '');
    expect(payout).toMatchObject({
      status: 'succeeded',
      origin: 'settlement',
      idempotencyKey: settlement.id,
      sourceRef: settlement.id,
      instruction: { type: 'bank_transfer', beneficiary: destination },
    });
    expect(await idempotencyItems(wired.dynamoDb, h.tableName, settlement.id)).toHaveLength(1);
    wired.dynamoDb.destroy();
  });

  it('pays nothing more however often a paid settlement is triggered again', async () => {
    const wired = settlementServiceFor(h);
    const settlement = await seededSettlement(h, 'MERCHANT_SETTLEMENT', 'SUCCESSFUL');
    const before = h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
    const again = await Promise.all([1, 2, 3].map(() => wired.service.payOut(settlement.id, 'api', ops)));
    const report = await wired.service.poll();
    expect(again.map((r) => r.outcome)).toEqual(['paid', 'paid', 'paid']);
    expect(report.paid).toBe(0);
    expect(report.alreadyDecided).toBeGreaterThan(0);
    expect(h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0).toBe(before);
    wired.dynamoDb.destroy();
  });

  it('records a FAILED settlement as skipped with the reason, and never pays it', async () => {
    const wired = settlementServiceFor(h);
    const failed = await seededSettlement(h, 'CARD_SETTLEMENT', 'FAILED');
    const before = h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
    const result = await wired.service.payOut(failed.id, 'event', system);
    expect(result).toMatchObject({
      outcome: 'skipped',
      decision: { decision: 'skipped', code: 'SETTLEMENT_NOT_SUCCESSFUL', trigger: 'event' },
    });
    expect(result.outcome === 'skipped' && result.decision.reason).toContain('FAILED');
    expect(await wired.service.payOut(failed.id, 'api', ops)).toMatchObject({ outcome: 'skipped' });
    expect(h.sandbox.stats().requests['/settlement/instant/payout'] ?? 0).toBe(before);
    expect(await idempotencyItems(wired.dynamoDb, h.tableName, failed.id)).toHaveLength(0);
    wired.dynamoDb.destroy();
  });

  it('records a FAILED settlement of amount 0 as skipped', async () => {
    const wired = settlementServiceFor(h);
    const zero = await seededSettlement(h, 'MERCHANT_SETTLEMENT', 'FAILED');
    expect(zero.amount).toBe(0);
    expect(await wired.service.payOut(zero.id, 'api', ops)).toMatchObject({ outcome: 'skipped' });
    wired.dynamoDb.destroy();
  });

  it('records a settlement below the minimum as skipped, so the poll does not decide it again', async () => {
    const fresh = await startEngineHarness();
    try {
      const wired = settlementServiceFor(fresh, { minimumKobo: 50_000_000 });
      const first = await wired.service.poll();
      expect(first).toMatchObject({ skipped: 2, paid: 0, failed: 0 });
      const card = await seededSettlement(fresh, 'CARD_SETTLEMENT', 'SUCCESSFUL');
      expect(await wired.service.decision(card.id)).toMatchObject({
        decision: 'skipped',
        code: 'BELOW_MINIMUM',
      });
      const second = await wired.service.poll();
      expect(second).toMatchObject({ alreadyDecided: 2, skipped: 0, paid: 0 });
      expect(fresh.sandbox.stats().requests['/settlement/instant/payout'] ?? 0).toBe(0);
      wired.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  it('a deferred settlement is invisible: it is listed as deferred with its reason until a later trigger decides it, then only the decision shows', async () => {
    const fresh = await startEngineHarness();
    try {
      const wired = settlementServiceFor(fresh, { allowedMinutes: { from: 8 * 60, to: 9 * 60 } });
      const card = await seededSettlement(fresh, 'CARD_SETTLEMENT', 'SUCCESSFUL');
      await wired.service.payOut(card.id, 'event', system);
      await wired.service.payOut(card.id, 'poll', system);
      expect(await wired.service.deferral(card.id)).toMatchObject({
        code: 'OUTSIDE_ALLOWED_HOURS',
        trigger: 'poll',
        deferredBy: system,
      });
      const deferred = await wired.service.list({ state: 'deferred', limit: 10 });
      expect(deferred.items).toEqual([expect.objectContaining({ kind: 'deferral', settlementId: card.id })]);
      expect((deferred.items[0] as { reason: string }).reason).toContain('outside the allowed hours');

      fresh.clock.set('2026-03-03T07:30:00.000Z'); // 08:30 Lagos, next day
      expect((await wired.service.payOut(card.id, 'api', ops)).outcome).toBe('paid');
      expect(await wired.service.deferral(card.id)).toBeUndefined();
      expect((await wired.service.list({ state: 'deferred', limit: 10 })).items).toEqual([]);
      const paid = await wired.service.list({ state: 'paid', limit: 10 });
      expect(paid.items).toEqual([expect.objectContaining({ kind: 'decision', settlementId: card.id })]);
      wired.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  it('stops deciding at its stop instant and leaves a payout to the sweeper when too little time is left; the next poll and the sweeper pay the rest, each once', async () => {
    const fresh = await startEngineHarness();
    try {
      const wired = settlementServiceFor(fresh);
      const instantPayouts = () => fresh.sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
      // An injected clock, 10 s later at each look: the first settlement is decided, none is submitted inline
      // (submitInlineUntil already past), and the next settlement finds the stop instant past.
      let clock = 0;
      const now = () => {
        clock += 10_000;
        return clock;
      };
      const cut = await wired.service.poll(system, { stopStartingAt: 25_000, submitInlineUntil: 0, now });
      expect(cut).toMatchObject({ examined: 1, paid: 1, leftToSweeper: 1, stoppedEarly: true });
      expect(instantPayouts()).toBe(0);

      // The next poll decides what is left (and has the time to submit it inline).
      const next = await wired.service.poll(system);
      expect(next).toMatchObject({ paid: 1, leftToSweeper: 0, stoppedEarly: false });
      expect(instantPayouts()).toBe(1);

      // The payout left pending is the sweeper's at its next tick (not held back for an inline submission);
      // nothing is paid twice.
      await payoutSweeper(fresh.engine).sweep();
      expect(instantPayouts()).toBe(2);
      expect(await wired.service.poll(system)).toMatchObject({ paid: 0, failed: 0 });
      await payoutSweeper(fresh.engine).sweep();
      expect(instantPayouts()).toBe(2);
      wired.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  describe('handing the payout to the submission workers (the event and the poll, as deployed)', () => {
    it('hands each payout of a poll to the workers, sending none itself; the workers pay each once', async () => {
      const fresh = await startEngineHarness();
      const workers = await startHarnessWorkers(fresh);
      try {
        const wired = settlementServiceFor(fresh);
        const instantPayouts = () => fresh.sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
        const handedOver: string[] = [];
        const queue = {
          enqueue: async (requests: readonly SubmissionRequest[]) => {
            handedOver.push(...requests.map((request) => request.payoutId));
            // The workers may pay while the poll goes on; the poll itself never sends.
            await workers.submissions.enqueue(requests);
          },
        };
        const report = await wired.service.poll(system, undefined, queue);
        expect(report.paid).toBeGreaterThan(0);
        expect(report).toMatchObject({ handedOver: report.paid, leftToSweeper: 0, failed: 0 });
        expect(handedOver).toHaveLength(report.paid);
        await workers.idle();
        expect(instantPayouts()).toBe(report.paid);
        // The next poll finds every settlement decided and hands nothing over again.
        expect(await wired.service.poll(system, undefined, queue)).toMatchObject({ paid: 0, handedOver: 0 });
        expect(handedOver).toHaveLength(report.paid);
        wired.dynamoDb.destroy();
      } finally {
        await workers.stop();
        await fresh.close();
      }
    });

    it('pays once when the sweeper finds the handed-over payout due and enqueues it too', async () => {
      const workers = await startHarnessWorkers(h);
      try {
        const wired = settlementServiceFor(h);
        const settlementId = await newSettlement(h);
        const queue = { by: 'queue', queue: workers.submissions } as const;
        // The event hands the payout over while a sweeper tick enqueues whatever is due, this payout included.
        const [result] = await Promise.all([
          wired.service.payOut(settlementId, 'event', system, undefined, queue),
          payoutSweeper(h.engine).dispatch(workers.submissions),
        ]);
        await payoutSweeper(h.engine).dispatch(workers.submissions);
        await workers.idle();
        expect(result).toMatchObject({ outcome: 'paid' });
        expect(instantPayoutsFor(h, settlementId)).toHaveLength(1);
        const payoutId = result.outcome === 'paid' ? result.decision.payoutId : undefined;
        expect((await h.engine.get(payoutId ?? ''))?.status).toBe('succeeded');
        wired.dynamoDb.destroy();
      } finally {
        await workers.stop();
      }
    });

    it('leaves a payout the queue refused pending and due: the decision stands and the sweeper hands it over at its next tick', async () => {
      const wired = settlementServiceFor(h);
      const settlementId = await newSettlement(h);
      const refusing = {
        enqueue: async () => {
          throw new SubmissionQueueError('the queue refused 1 of 1 requests');
        },
      };
      const result = await wired.service.payOut(settlementId, 'event', system, undefined, {
        by: 'queue',
        queue: refusing,
      });
      expect(result).toMatchObject({ outcome: 'paid', payout: { status: 'pending' } });
      const payoutId = result.outcome === 'paid' ? result.decision.payoutId : undefined;
      expect(await wired.service.decision(settlementId)).toMatchObject({ decision: 'paid', payoutId });
      expect(
        h.logger.entries.some((entry) =>
          entry.message.startsWith('hand-over to the submission queue failed'),
        ),
      ).toBe(true);
      // Not held back for a send of its creator: due at once on the work queue, so the next tick enqueues it.
      const enqueued: SubmissionRequest[] = [];
      await payoutSweeper(h.engine).dispatch({
        enqueue: async (requests) => {
          enqueued.push(...requests);
        },
      });
      expect(enqueued.map((request) => request.payoutId)).toContain(payoutId);
      wired.dynamoDb.destroy();
    });

    it('hands nothing over for a payout that waits for a second person', async () => {
      const wired = settlementServiceFor(h);
      // Above the approval threshold (1,000,000 NGN), below the per-payout maximum.
      const amountKobo = h.engine.ctx.config.approvalThresholdKobo * 2;
      expect(amountKobo).toBeLessThan(h.engine.ctx.config.maxInstructionKobo);
      const settlementId = await addSettlement(h.sandbox.url, {
        category: 'MERCHANT_SETTLEMENT',
        amountKobo,
      });
      const enqueued: SubmissionRequest[] = [];
      const result = await wired.service.payOut(settlementId, 'event', system, undefined, {
        by: 'queue',
        queue: {
          enqueue: async (requests) => {
            enqueued.push(...requests);
          },
        },
      });
      expect(result).toMatchObject({ outcome: 'paid', payout: { status: 'pending_approval' } });
      expect(enqueued).toEqual([]);
      wired.dynamoDb.destroy();
    });
  });

  it('lists every decision newest first, page by page, and refuses a cursor it did not issue', async () => {
    const fresh = await startEngineHarness();
    try {
      const wired = settlementServiceFor(fresh);
      await wired.service.poll();
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await wired.service.list({ limit: 1, ...(cursor && { cursor }) });
        seen.push(...page.items.map((item) => item.settlementId));
        cursor = page.nextCursor;
      } while (cursor);
      const all = await wired.service.list({ limit: 100 });
      expect(seen).toEqual(all.items.map((item) => item.settlementId));
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThan(1);
      const byPaid = await wired.service.list({ state: 'paid', limit: 1 });
      await expect(
        wired.service.list({ state: 'skipped', limit: 1, cursor: byPaid.nextCursor }),
      ).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
      await expect(wired.service.list({ limit: 1, cursor: 'eyJwayI6MX0' })).rejects.toMatchObject({
        code: 'INVALID_CURSOR',
      });
      wired.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  it('defers outside the allowed hours without recording, and pays on a later trigger inside them', async () => {
    const fresh = await startEngineHarness();
    try {
      // 08:00-09:00 Lagos is 07:00-08:00Z; the harness clock starts at 08:00Z (09:00 Lagos).
      const wired = settlementServiceFor(fresh, { allowedMinutes: { from: 8 * 60, to: 9 * 60 } });
      const card = await seededSettlement(fresh, 'CARD_SETTLEMENT', 'SUCCESSFUL');
      const deferred = await wired.service.payOut(card.id, 'event', system);
      expect(deferred).toMatchObject({ outcome: 'deferred' });
      expect(deferred.outcome === 'deferred' && deferred.reason).toContain('09:00');
      expect(await wired.service.decision(card.id)).toBeUndefined();
      expect(fresh.sandbox.stats().requests['/settlement/instant/payout'] ?? 0).toBe(0);

      fresh.clock.set('2026-03-03T07:30:00.000Z'); // 08:30 Lagos, next day
      const report = await wired.service.poll();
      expect(report).toMatchObject({ paid: 2, deferred: 0 });
      expect(instantPayoutsFor(fresh, card.id)).toHaveLength(1);
      wired.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  it('keeps the keep-back in the wallet and pays the rest', async () => {
    const fresh = await startEngineHarness();
    try {
      const wired = settlementServiceFor(fresh, { keepBackKobo: 200_000 });
      const card = await seededSettlement(fresh, 'CARD_SETTLEMENT', 'SUCCESSFUL');
      expect(card.amount).toBe(17_000);
      await wired.service.payOut(card.id, 'api', ops);
      expect(instantPayoutsFor(fresh, card.id).map((op) => op.amount)).toEqual([15_000]);
      expect(await wired.service.decision(card.id)).toMatchObject({
        amountKobo: 1_500_000,
        settlement: { amountKobo: 1_700_000 },
      });
      wired.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  it('never pays the INSTANT_SETTLEMENT records its own payouts create', async () => {
    const fresh = await startEngineHarness();
    try {
      const wired = settlementServiceFor(fresh);
      await wired.service.poll();
      const paid = fresh.sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
      expect(paid).toBe(2);
      // Each payout added an INSTANT_SETTLEMENT to GET /settlement; the next polls leave them alone.
      await wired.service.poll();
      await wired.service.poll();
      expect(fresh.sandbox.stats().requests['/settlement/instant/payout'] ?? 0).toBe(paid);
      const instant = await seededSettlement(fresh, 'INSTANT_SETTLEMENT', 'SUCCESSFUL');
      expect(await wired.service.payOut(instant.id, 'api', ops)).toMatchObject({
        outcome: 'skipped',
        decision: { code: 'CATEGORY_EXCLUDED' },
      });
      wired.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  it('records the decision in the payout’s creating transaction: the decision store writes nothing of its own', async () => {
    const wired = settlementServiceFor(h);
    const ownCommands: string[] = [];
    wired.dynamoDb.middlewareStack.add(
      (next, context) => (args) => {
        ownCommands.push(context.commandName ?? '?');
        return next(args);
      },
      { step: 'initialize', name: 'countCommands' },
    );
    const settlement = await newSettlement(h);

    const paid = await wired.service.payOut(settlement, 'event', system);

    expect(paid).toMatchObject({ outcome: 'paid', payout: { status: 'succeeded' } });
    // The decision store sent nothing, not even a read: the decision came with the payout's creation.
    expect(ownCommands).toEqual([]);
    expect(await wired.service.decision(settlement)).toMatchObject({
      decision: 'paid',
      payoutId: paid.outcome === 'paid' ? paid.payout?.id : undefined,
    });
    wired.dynamoDb.destroy();
  });

  it('pays nothing for a settlement another trigger decided not to pay, though its own policy would: the recorded decision refuses the payout', async () => {
    const settlement = await newSettlement(h, 'CARD_SETTLEMENT');
    // The first trigger's policy leaves card settlements out: it records CATEGORY_EXCLUDED.
    const excluding = settlementServiceFor(h, { categories: ['MERCHANT_SETTLEMENT'] });
    expect(await excluding.service.payOut(settlement, 'event', system)).toMatchObject({
      outcome: 'skipped',
      decision: { code: 'CATEGORY_EXCLUDED' },
    });
    // A second trigger, whose policy pays card settlements: it reads no decision first, and goes to pay.
    const late = settlementServiceFor(h);

    const result = await late.service.payOut(settlement, 'api', ops);

    expect(result).toMatchObject({ outcome: 'skipped', decision: { code: 'CATEGORY_EXCLUDED' } });
    expect(instantPayoutsFor(h, settlement)).toHaveLength(0);
    // The payout was never written: its creation and the refused decision were one transaction.
    expect(await idempotencyItems(late.dynamoDb, h.tableName, settlement)).toHaveLength(0);
    excluding.dynamoDb.destroy();
    late.dynamoDb.destroy();
  });

  it('answers the paid decision when a paid settlement is triggered again under a policy that would now skip it, and records no skip', async () => {
    const { settlement, payoutId, paying } = await paidSettlement(h, 'CARD_SETTLEMENT');
    const excluding = settlementServiceFor(h, { categories: ['MERCHANT_SETTLEMENT'] });

    const again = await excluding.service.payOut(settlement, 'api', ops);

    expect(again).toMatchObject({
      outcome: 'paid',
      decision: { decision: 'paid', payoutId, trigger: 'event' },
    });
    expect(await paying.service.decision(settlement)).toMatchObject({ decision: 'paid', payoutId });
    expect(instantPayoutsFor(h, settlement)).toHaveLength(1);
    paying.dynamoDb.destroy();
    excluding.dynamoDb.destroy();
  });

  it('answers the recorded decision when a decided settlement is triggered again outside the allowed hours, and records no deferral', async () => {
    const fresh = await startEngineHarness();
    try {
      const { settlement, payoutId, paying } = await paidSettlement(fresh);
      // 08:00-09:00 Lagos is 07:00-08:00Z; the harness clock starts at 08:00Z (09:00 Lagos): outside them.
      const outOfHours = settlementServiceFor(fresh, { allowedMinutes: { from: 8 * 60, to: 9 * 60 } });

      const again = await outOfHours.service.payOut(settlement, 'api', ops);

      expect(again).toMatchObject({ outcome: 'paid', decision: { decision: 'paid', payoutId } });
      expect(await outOfHours.service.deferral(settlement)).toBeUndefined();
      const listed = await outOfHours.service.list({ state: 'deferred', limit: 10 });
      expect(listed.items).toEqual([]);
      expect(instantPayoutsFor(fresh, settlement)).toHaveLength(1);
      paying.dynamoDb.destroy();
      outOfHours.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  it('answers the decision of a settlement the provider no longer lists within the bound, instead of NotFoundError', async () => {
    const fresh = await startEngineHarness();
    try {
      const { settlement, payoutId, paying } = await paidSettlement(fresh);
      // The provider's listing as it is long after: the settlement is past every page a look-up walks.
      const pageSizes: (number | undefined)[] = [];
      const settlements = new (class extends Settlements {
        override async list(...args: Parameters<Settlements['list']>) {
          pageSizes.push(args[0]?.perPage);
          const page = await super.list(...args);
          return { ...page, items: page.items.filter((listed) => listed.id !== settlement) };
        }
      })(fresh.client.connection.requester);
      const later = settlementServiceFor(fresh, {}, { provider: { settlements } });

      const again = await later.service.payOut(settlement, 'api', ops);

      expect(again).toMatchObject({ outcome: 'paid', decision: { decision: 'paid', payoutId } });
      expect(pageSizes[0]).toBe(FIRST_LOOK_SIZE);
      expect(instantPayoutsFor(fresh, settlement)).toHaveLength(1);
      paying.dynamoDb.destroy();
      later.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  it('looks for a settlement among the newest first (one small page), then walks full pages', async () => {
    const fresh = await startEngineHarness();
    try {
      const pageSizes: (number | undefined)[] = [];
      const settlements = new (class extends Settlements {
        override list(...args: Parameters<Settlements['list']>) {
          pageSizes.push(args[0]?.perPage);
          return super.list(...args);
        }
      })(fresh.client.connection.requester);
      const wired = settlementServiceFor(fresh, {}, { provider: { settlements } });
      const old = await seededSettlement(fresh, 'MERCHANT_SETTLEMENT', 'SUCCESSFUL');
      for (let i = 0; i < FIRST_LOOK_SIZE; i++) await newSettlement(fresh, 'CARD_SETTLEMENT');
      const newest = await newSettlement(fresh);

      expect(await wired.service.payOut(newest, 'event', system)).toMatchObject({ outcome: 'paid' });
      expect(pageSizes).toEqual([FIRST_LOOK_SIZE]);

      pageSizes.length = 0;
      expect(await wired.service.payOut(old.id, 'event', system)).toMatchObject({ outcome: 'paid' });
      // Past the newest: the walk starts again from the first page, in pages of 100.
      expect(pageSizes).toEqual([FIRST_LOOK_SIZE, 100]);
      expect(instantPayoutsFor(fresh, old.id)).toHaveLength(1);
      wired.dynamoDb.destroy();
    } finally {
      await fresh.close();
    }
  });

  it('throws NotFoundError for an id the provider does not list, and records nothing', async () => {
    const wired = settlementServiceFor(h);
    await expect(wired.service.payOut('no-such-settlement', 'api', ops)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(await wired.service.decision('no-such-settlement')).toBeUndefined();
    wired.dynamoDb.destroy();
  });
});

/** A settlement a first trigger paid: its id, the payout its decision names, and the service that paid it. */
async function paidSettlement(harness: EngineHarness, category?: Parameters<typeof newSettlement>[1]) {
  const paying = settlementServiceFor(harness);
  const settlement = await newSettlement(harness, category);
  const paid = await paying.service.payOut(settlement, 'event', system);
  const payoutId = paid.outcome === 'paid' ? paid.decision.payoutId : undefined;
  expect(payoutId).toBeDefined();
  return { settlement, payoutId, paying };
}
