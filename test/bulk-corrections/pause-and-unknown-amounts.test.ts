import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorrectionJobService } from '../../lib/bulk-corrections/correction-jobs.js';
import { BulkCorrectionService } from '../../lib/bulk-corrections/correction-service.js';
import { DynamoDbBulkItemStore } from '../../lib/bulk-corrections/store/dynamodb-bulk-item-store.js';
import { DynamoDbCorrectionJobStore } from '../../lib/bulk-corrections/store/dynamodb-job-store.js';
import { type GateLimits, judge, MoneyEntryPoint } from '../../lib/controls/gate.js';
import { pausePayouts, resumePayouts } from '../../lib/payouts/engine/controls.js';
import type { Controls } from '../../lib/payouts/model.js';
import { BulkPayouts } from '../../lib/provider/resources/bulk-payouts.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { providerConnectionOf } from '../../lib/runtime/provider-connection.js';
import { silentLogger } from '../../lib/shared/logger.js';
import { call } from '../api/support/harness.js';
import { type JobsHarness, PATCH_PATH, startJobsHarness } from './support.js';

const ops = { id: 'ops', kind: 'user' } as const;
const alice = { id: 'alice', kind: 'user' } as const;
const bob = { id: 'bob', kind: 'user' } as const;

describe('bulk corrections: the pause read after the claim, and amounts not known here', () => {
  let h: JobsHarness;
  let validIds: string[];
  let invalidIds: string[];
  beforeAll(async () => {
    h = await startJobsHarness(0);
    const items = h.sandbox.fixtures().bulkPayoutItems;
    validIds = items.filter((item) => item.isValid).map((item) => item.id);
    invalidIds = items.filter((item) => !item.isValid).map((item) => item.id);
  });
  afterAll(async () => h.close());

  const patchCount = () => h.sandbox.stats().requests[PATCH_PATH] ?? 0;
  const engineCtx = () => payoutEngineOf(h.runtime).ctx;

  /** The correction service as the runtime composes it, with its own limits and pause read. */
  function correctionService(controls: () => Promise<Controls>, limits?: GateLimits): BulkCorrectionService {
    return new BulkCorrectionService({
      store: new DynamoDbBulkItemStore(h.runtime.dynamoDb, h.runtime.tableName),
      provider: { bulkPayouts: new BulkPayouts(providerConnectionOf(h.runtime).requester) },
      limits: { ...engineCtx().config, ...limits },
      controls,
      logger: silentLogger,
    });
  }

  /**
   * A pause that lands right after the service's first read of the controls: between a correction's read before
   * its claim and the claim itself, the one round trip the read before the claim cannot see.
   */
  function pauseLandingAfterFirstRead(): BulkCorrectionService {
    let reads = 0;
    return correctionService(async () => {
      const controls = await engineCtx().store.getControls();
      if (++reads === 1) await pausePayouts(engineCtx(), ops, 'lands between the read and the claim');
      return controls;
    });
  }

  const patch = (id: string, body: Record<string, unknown>, principal = 'alice') =>
    call(h.api, { method: 'PATCH', path: `/bulk-payout-items/${id}`, principal, body });
  const approve = (id: string, correctionId: string, principal: string) =>
    call(h.api, {
      method: 'POST',
      path: `/bulk-payout-items/${id}/corrections/${correctionId}/approve`,
      principal,
    });

  describe('a pause landing between the pause read and the claim', () => {
    it('sends no job row when the pause lands between its pause read and its claim, and gives the claim back: the row ends paused', async () => {
      const id = validIds[0] ?? '';
      const jobs = new CorrectionJobService({
        store: new DynamoDbCorrectionJobStore(h.runtime.dynamoDb, h.runtime.tableName),
        corrections: pauseLandingAfterFirstRead(),
        limits: engineCtx().config,
        // The test works the row itself, below.
        queue: { send: async () => undefined },
        logger: silentLogger,
      });
      const before = patchCount();
      const { job } = await jobs.submit(
        [{ bulkPayoutItemId: id, narration: 'paused mid-row' }],
        'json',
        alice,
      );
      try {
        const work = {
          kind: 'bulk-correction' as const,
          jobId: job.jobId,
          bulkPayoutItemId: id,
          indexes: [0],
        };
        expect(await jobs.work(work, Date.now() + 60_000)).toBe('done');
        expect(patchCount()).toBe(before);
        // The claim given back: the row left `sending` (a redelivery would have called it unknown) for `paused`.
        expect(await jobs.allItems(job.jobId)).toMatchObject([
          { status: 'paused', result: { failure: { code: 'PAYOUTS_PAUSED' } } },
        ]);
      } finally {
        await resumePayouts(engineCtx(), ops);
      }
      expect(await jobs.get(job.jobId)).toMatchObject({ status: 'completed', counts: { paused: 1 } });
      expect(patchCount()).toBe(before);
    });

    it('sends no approved correction when the pause lands between its pause read and the approval claim, gives the approval back, and sends it once after resume', async () => {
      const id = validIds[1] ?? '';
      const held = await patch(id, { accountNumber: '0123456780' });
      expect(held.status).toBe(202);
      const correctionId: string = held.body.correction.correctionId;
      const before = patchCount();
      try {
        const result = await pauseLandingAfterFirstRead().approve(id, correctionId, bob);
        expect(result).toMatchObject({ outcome: 'paused', failure: { code: 'PAYOUTS_PAUSED' } });
        expect(patchCount()).toBe(before);
        const store = new DynamoDbBulkItemStore(h.runtime.dynamoDb, h.runtime.tableName);
        const waiting = await store.getPending(id, correctionId);
        expect(waiting).toMatchObject({ status: 'pending_approval' });
        expect(waiting?.approvedBy).toBeUndefined();
        const queue = await store.listCorrections({ status: 'pending_approval', limit: 100 });
        expect(queue.items.map((item) => item.correctionId)).toContain(correctionId);
      } finally {
        await resumePayouts(engineCtx(), ops);
      }
      const approved = await approve(id, correctionId, 'bob');
      expect(approved.status).toBe(200);
      expect(approved.body.outcome).toBe('corrected');
      expect(patchCount()).toBe(before + 1);
    });
  });

  describe('a correction whose amount is not known here', () => {
    it('the gate holds an unknown amount for a second person under any limits and never takes it as 0', () => {
      for (const limits of [
        { maxInstructionKobo: 500_000_000, approvalThresholdKobo: 100_000_000 },
        { maxInstructionKobo: 1, approvalThresholdKobo: 1 },
      ]) {
        const unknownAmount = {
          entryPoint: MoneyEntryPoint.BulkCorrection,
          debits: { kind: 'main_wallet' as const },
          amount: { kobo: undefined, source: { from: 'request' as const } },
          releasedBy: { id: 'alice', kind: 'user' as const },
        };
        const decision = judge(limits, unknownAmount);
        expect(decision.approvalRequired).toContain('not known here');
        expect(decision.amountAtStakeKobo).toBeUndefined();
        const withReason = judge(limits, { ...unknownAmount, approvalReason: 'changes the destination' });
        expect(withReason.approvalRequired).toMatch(/^changes the destination; .*not known here/);
      }
    });

    it('holds a new destination for an item the provider holds as invalid but whose amount is not known here, until a second person approves', async () => {
      const id = invalidIds[0] ?? '';
      // A narration alone moves no money: sent at once. The provider's answer makes the item known invalid here;
      // its amount is still unknown (the provider's records carry none).
      const narration = await patch(id, { narration: 'June salaries' });
      expect(narration.status).toBe(200);
      expect(narration.body).toMatchObject({ outcome: 'still_invalid', isValid: false });
      const before = patchCount();
      const held = await patch(id, { accountNumber: '0123456789' });
      expect(held.status).toBe(202);
      expect(held.body).toMatchObject({ outcome: 'pending_approval' });
      expect(held.body.correction.reason).toContain('the amount it sends is not known here');
      expect(patchCount()).toBe(before);
      const bySelf = await approve(id, held.body.correction.correctionId, 'ALICE');
      expect(bySelf.status).toBe(403);
      const approved = await approve(id, held.body.correction.correctionId, 'bob');
      expect(approved.status).toBe(200);
      expect(approved.body.outcome).toBe('corrected');
      expect(patchCount()).toBe(before + 1);
    });

    it('holds a job row that gives an invalid item of unknown amount a new destination, and sends it once a second person approves', async () => {
      const id = validIds[2] ?? '';
      // Made invalid here first: a new destination for an item of unknown validity, approved by a second person.
      const broken = await patch(id, { bankCode: '999' });
      expect(broken.status).toBe(202);
      const applied = await approve(id, broken.body.correction.correctionId, 'bob');
      expect(applied.body).toMatchObject({ outcome: 'still_invalid', isValid: false });
      const before = patchCount();
      const accepted = await call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        body: { corrections: [{ bulkPayoutItemId: id, bankCode: '058' }] },
      });
      expect(accepted.status).toBe(202);
      await h.drain();
      const location = accepted.headers.location ?? '';
      const rows = await call(h.api, { method: 'GET', path: `${location}/items` });
      expect(rows.body.items).toMatchObject([{ status: 'pending_approval' }]);
      expect(rows.body.items[0].approvalReason).toContain('not known here');
      expect(patchCount()).toBe(before);
      const approved = await call(h.api, {
        method: 'POST',
        path: rows.body.items[0].approve,
        principal: 'bob',
      });
      expect(approved.status).toBe(200);
      expect(patchCount()).toBe(before + 1);
      const job = await call(h.api, { method: 'GET', path: location });
      expect(job.body).toMatchObject({ status: 'completed', counts: { corrected: 1 } });
    });

    it('holds a new destination for an invalid item whose amount is known here and below the threshold until a person other than the one who entered it releases it', async () => {
      const id = invalidIds[1] ?? '';
      // The amount, set by bob in a correction of ours and saved by the provider (below the threshold: no approval).
      const amount = await patch(id, { amount: 400_000 }, 'bob');
      expect(amount.status).toBe(200);
      expect(amount.body).toMatchObject({ outcome: 'still_invalid', isValid: false });
      const before = patchCount();
      // Alice enters the new destination; sent at once, she alone would release it.
      const held = await patch(id, { bankCode: '058' });
      expect(held.status).toBe(202);
      expect(held.body.correction.reason).toContain('entered by the same person who releases it');
      expect(patchCount()).toBe(before);
      const fixed = await approve(id, held.body.correction.correctionId, 'carol');
      expect(fixed.status).toBe(200);
      expect(fixed.body).toMatchObject({ outcome: 'corrected', isValid: true });
      expect(patchCount()).toBe(before + 1);
    });

    it('refuses a new destination for an item whose amount as known here is above the per-payout maximum, and sends nothing', async () => {
      const id = validIds[3] ?? '';
      const amount = await patch(id, { amount: 400_000 });
      expect(amount.body).toMatchObject({ outcome: 'corrected' });
      // Limits lowered since: the item's known amount is now above the maximum.
      const lowered = correctionService(() => engineCtx().store.getControls(), {
        maxInstructionKobo: 300_000,
        approvalThresholdKobo: 200_000,
      });
      const before = patchCount();
      // Known on alice's word: refused when bob redirects it.
      const result = await lowered.correct(id, { accountNumber: '0123456789' }, bob);
      expect(result).toMatchObject({ outcome: 'invalid', issues: [{ path: 'amount' }] });
      // Alice's own word does not make it known for her: her redirect waits, and bob's approval, weighing the
      // amount on alice's word, is refused.
      const own = await lowered.correct(id, { accountNumber: '0123456789' }, alice);
      expect(own).toMatchObject({ outcome: 'pending_approval' });
      if (own.outcome !== 'pending_approval') throw new Error('held');
      const approval = await lowered.approve(id, own.correction.correctionId, bob);
      expect(approval).toMatchObject({ outcome: 'invalid', issues: [{ path: 'amount' }] });
      expect(patchCount()).toBe(before);
    });
  });
});
