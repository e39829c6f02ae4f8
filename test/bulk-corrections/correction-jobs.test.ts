import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorrectionJobService } from '../../lib/bulk-corrections/correction-jobs.js';
import { CorrectionJobNotEnqueuedError } from '../../lib/bulk-corrections/job-errors.js';
import type { JobItemStatus } from '../../lib/bulk-corrections/job-model.js';
import { ENQUEUE_RETRY_DELAY_MS, enqueuePendingJobs } from '../../lib/bulk-corrections/pending-enqueue.js';
import { DynamoDbCorrectionJobStore } from '../../lib/bulk-corrections/store/dynamodb-job-store.js';
import { runQueueBatch } from '../../lib/jobs/queue-batch.js';
import { pausePayouts, resumePayouts } from '../../lib/payouts/engine/controls.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { createRuntime } from '../../lib/runtime/runtime.js';
import { bulkCorrectionsOf } from '../../lib/runtime/services.js';
import { submissionsOf } from '../../lib/runtime/submissions.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { silentLogger } from '../../lib/shared/logger.js';
import { call } from '../api/support/harness.js';
import { type JobsHarness, PATCH_PATH, startJobsHarness } from './support.js';

function csvOf(rows: readonly { id: string; narration: string }[]): string {
  return `bulkPayoutItemId,narration\n${rows.map((row) => `${row.id},${row.narration}`).join('\n')}\n`;
}

describe('bulk corrections as jobs: accepted at once, worked by the queue workers', () => {
  describe('with the provider answering after 500 ms', () => {
    let h: JobsHarness;
    beforeAll(async () => {
      h = await startJobsHarness(500);
    });
    afterAll(async () => h.close());

    it('accepts a 500-row CSV with 202, a job id and a Location, without calling the provider, in O(rows/25) writes', async () => {
      const ids = h.sandbox.fixtures().bulkPayoutItems.map((item) => item.id);
      const rows = Array.from({ length: 500 }, (_, index) => ({
        id: ids[index % ids.length] ?? '',
        narration: `June salaries ${index}`,
      }));
      // Hold the workers back: what the POST itself does is measured here.
      h.worker = async () => {
        throw new Error('not yet');
      };
      const patchesBefore = h.sandbox.stats().requests[PATCH_PATH] ?? 0;
      const callsBefore = h.calls.length;
      const reply = await call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        headers: { 'content-type': 'text/csv' },
        body: csvOf(rows),
      });
      expect(reply.status).toBe(202);
      expect(reply.body).toMatchObject({ total: 500, status: 'running', counts: { queued: 500 } });
      expect(reply.headers.location).toBe(`/bulk-correction-jobs/${reply.body.jobId}`);
      expect(h.sandbox.stats().requests[PATCH_PATH] ?? 0).toBe(patchesBefore);
      const writes = h.calls.slice(callsBefore);
      expect(writes.filter((command) => command === 'BatchWriteItemCommand')).toHaveLength(500 / 25);
      // Besides the row batches, only the job item and the messages (10 a call): no read of any item, no
      // provider call.
      // Then the job item leaves the sweeper's hand-over index (UpdateItem), the queue having taken all of it.
      expect(writes.filter((command) => command !== 'BatchWriteItemCommand')).toEqual([
        'PutItemCommand',
        ...Array.from({ length: Math.ceil(ids.length / 10) }, () => 'SendMessageBatchCommand'),
        'UpdateItemCommand',
      ]);
      // One message per bulk payout item, its rows in order.
      expect(h.workers.queue.stats().visible + h.workers.queue.stats().inFlight).toBe(ids.length);
      const job = await call(h.api, { method: 'GET', path: reply.headers.location ?? '' });
      expect(job.body).toMatchObject({ total: 500, progress: { done: 0, total: 500 } });
    });
  });

  describe('with the provider answering at once', () => {
    let h: JobsHarness;
    let ids: string[];
    let validIds: string[];
    beforeAll(async () => {
      h = await startJobsHarness(0);
      ids = h.sandbox.fixtures().bulkPayoutItems.map((item) => item.id);
      validIds = h.sandbox
        .fixtures()
        .bulkPayoutItems.filter((item) => item.isValid)
        .map((item) => item.id);
    });
    afterAll(async () => h.close());

    const patchCount = () => h.sandbox.stats().requests[PATCH_PATH] ?? 0;

    it('refuses a batch with bad rows as a whole: 400 naming each row and field, nothing stored or sent', async () => {
      const before = patchCount();
      const jobsBefore = (await call(h.api, { method: 'GET', path: '/bulk-correction-jobs' })).body.items
        .length;
      const json = await call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        body: {
          corrections: [
            { bulkPayoutItemId: ids[0], narration: 'fine' },
            { bulkPayoutItemId: ids[1], accountNumber: 'abc' },
            { bulkPayoutItemId: ids[2], amount: 150_050 },
          ],
        },
      });
      expect(json.status).toBe(400);
      expect(json.body.errors.map((issue: { path: string }) => issue.path)).toEqual([
        'corrections[1].accountNumber',
        'corrections[2].amount',
      ]);
      const csv = await call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        headers: { 'content-type': 'text/csv' },
        body: `bulkPayoutItemId,accountNumber,amount\n${ids[0]},0123456789,\n${ids[1]},,12345\n`,
      });
      expect(csv.status).toBe(400);
      expect(csv.body.errors.map((issue: { path: string }) => issue.path)).toEqual(['row 2.amount']);
      const tooMany = await call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        body: {
          corrections: Array.from({ length: 501 }, () => ({ bulkPayoutItemId: ids[0], narration: 'x' })),
        },
      });
      expect(tooMany.status).toBe(400);
      expect(patchCount()).toBe(before);
      expect(h.workers.queue.stats().visible).toBe(0);
      expect((await call(h.api, { method: 'GET', path: '/bulk-correction-jobs' })).body.items).toHaveLength(
        jobsBefore,
      );
    });

    const uploadCsv = (body: string) =>
      call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        headers: { 'content-type': 'text/csv' },
        body,
      });
    const jobCount = async () =>
      (await call(h.api, { method: 'GET', path: '/bulk-correction-jobs' })).body.items.length;

    it('refuses a correction CSV with a repeated amount column, naming it, instead of letting the last cell win', async () => {
      const before = patchCount();
      const jobsBefore = await jobCount();
      // Blanks around a name and a spreadsheet's byte order mark do not make a repeated column another one.
      for (const header of ['bulkPayoutItemId,amount,amount', '\uFEFF bulkPayoutItemId ,amount, amount ']) {
        const reply = await uploadCsv(`${header}\n${validIds[0]},150000,9900000\n`);
        expect(reply.status, header).toBe(400);
        expect(reply.body.type).toBe('urn:payout-automation:problem:validation');
        expect(reply.body.errors, header).toEqual([
          { path: 'header', message: expect.stringMatching(/^repeated column amount \(columns 2 and 3\)/) },
        ]);
      }
      expect(patchCount()).toBe(before);
      expect(h.workers.queue.stats().visible).toBe(0);
      expect(await jobCount()).toBe(jobsBefore);
      // The same spreadsheet with each column once is read as its columns, and its one row corrected.
      const once = await uploadCsv(`\uFEFF bulkPayoutItemId , narration\r\n${validIds[0]},header shapes\r\n`);
      expect(once.status).toBe(202);
      await h.drain();
      const job = await call(h.api, { method: 'GET', path: once.headers.location ?? '' });
      expect(job.body).toMatchObject({ status: 'completed', counts: { corrected: 1 } });
    });

    it('refuses a correction CSV header with an unknown, misspelt-case or unnamed column, naming each', async () => {
      const before = patchCount();
      const jobsBefore = await jobCount();
      const cases: [string, RegExp[]][] = [
        ['bulkPayoutItemId,amount,iban', [/^unknown column "iban" \(column 3\)/]],
        ['bulkPayoutItemId,Amount', [/^unknown column "Amount" \(column 2\).*did you mean amount\?/]],
        ['bulkPayoutItemId,,narration', [/^column 2 has no name/]],
        [
          'bulkPayoutItemId,narration,narration,colour',
          [/^repeated column narration \(columns 2 and 3\)/, /^unknown column "colour" \(column 4\)/],
        ],
        ['narration', [/^the bulkPayoutItemId column is required/]],
      ];
      for (const [header, messages] of cases) {
        const reply = await uploadCsv(`${header}\n${validIds[0]},x,y,z\n`);
        expect(reply.status, header).toBe(400);
        expect(reply.body.errors, header).toEqual(
          messages.map((message) => ({ path: 'header', message: expect.stringMatching(message) })),
        );
      }
      expect(patchCount()).toBe(before);
      expect(await jobCount()).toBe(jobsBefore);
    });

    it('refuses a job row above the per-payout maximum with a 400 naming the row and amount, nothing stored or sent', async () => {
      const before = patchCount();
      const twiceTheMaximum = 2 * payoutEngineOf(h.runtime).ctx.config.maxInstructionKobo;
      const reply = await call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        body: {
          corrections: [
            { bulkPayoutItemId: validIds[0], narration: 'June salaries' },
            { bulkPayoutItemId: validIds[1], accountNumber: '9999999999', amount: twiceTheMaximum },
          ],
        },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.errors.map((issue: { path: string }) => issue.path)).toEqual([
        'corrections[1].amount',
      ]);
      expect(h.workers.queue.stats().visible).toBe(0);
      expect(patchCount()).toBe(before);
    });

    it('answers a retry with the same Idempotency-Key with the job it created, queues and sends its rows once, and refuses the key with other rows', async () => {
      const before = patchCount();
      const post = (corrections: unknown[], key: string) =>
        call(h.api, {
          method: 'POST',
          path: '/bulk-payout-items/corrections',
          principal: 'alice',
          headers: { 'Idempotency-Key': key },
          body: { corrections },
        });
      const rows = [
        { bulkPayoutItemId: validIds[2], narration: 'retried once' },
        { bulkPayoutItemId: validIds[3], narration: 'retried once' },
      ];
      // Two requests with the key race each other (the first's answer lost, its retry sent at once), then a
      // later retry comes.
      const [first, second] = await Promise.all([post(rows, 'jobs-retry-1'), post(rows, 'jobs-retry-1')]);
      const third = await post(rows, 'jobs-retry-1');
      const [created, raced] = first.status === 202 ? [first, second] : [second, first];
      expect(created.status).toBe(202);
      for (const again of [raced, third]) {
        expect(again.status).toBe(200);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.body.jobId).toBe(created.body.jobId);
        expect(again.headers.location).toBe(created.headers.location);
      }
      await h.drain();
      expect(patchCount()).toBe(before + 2);
      const done = await call(h.api, { method: 'GET', path: created.headers.location ?? '' });
      expect(done.body).toMatchObject({ status: 'completed', counts: { corrected: 2 } });
      // A retry after the job ran answers it as it stands now, and sends nothing again.
      const later = await post(rows, 'jobs-retry-1');
      expect(later.status).toBe(200);
      expect(later.body).toMatchObject({ jobId: created.body.jobId, status: 'completed' });
      await h.drain();
      expect(patchCount()).toBe(before + 2);
      // The key with other rows: 409, nothing stored or queued.
      const jobsBefore = (await call(h.api, { method: 'GET', path: '/bulk-correction-jobs' })).body.items
        .length;
      const other = await post(
        [{ bulkPayoutItemId: validIds[2], narration: 'something else' }],
        'jobs-retry-1',
      );
      expect(other.status).toBe(409);
      expect(other.body.type).toContain('idempotency-conflict');
      expect(h.workers.queue.stats().visible).toBe(0);
      expect((await call(h.api, { method: 'GET', path: '/bulk-correction-jobs' })).body.items).toHaveLength(
        jobsBefore,
      );
      // Without a key, the same rows are a job of their own, as before.
      const unkeyed = await call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        body: { corrections: rows },
      });
      expect(unkeyed.status).toBe(202);
      expect(unkeyed.body.jobId).not.toBe(created.body.jobId);
      await h.drain();
    });

    it('works a job through the queue: per-row results, counts, pages, a results CSV; a held row waits for a second person and is then sent', async () => {
      const before = patchCount();
      const accepted = await call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        body: {
          corrections: [
            { bulkPayoutItemId: validIds[0], narration: 'June salaries' },
            { bulkPayoutItemId: validIds[1], bankCode: '12345' },
            { bulkPayoutItemId: 'unknown-item', narration: 'x' },
            { bulkPayoutItemId: validIds[0], narration: 'June salaries, again' },
          ],
        },
      });
      expect(accepted.status).toBe(202);
      await h.drain();
      const location = accepted.headers.location ?? '';
      const job = await call(h.api, { method: 'GET', path: location });
      expect(job.body).toMatchObject({
        status: 'waiting_for_approval',
        counts: { corrected: 2, pending_approval: 1, provider_rejected: 1 },
        progress: { done: 3, total: 4, percent: 75 },
      });
      // The held row: nothing sent for it.
      expect(patchCount()).toBe(before + 3);
      const firstPage = await call(h.api, { method: 'GET', path: `${location}/items`, query: 'limit=2' });
      expect(firstPage.body.items.map((item: { row: number }) => item.row)).toEqual([1, 2]);
      const secondPage = await call(h.api, {
        method: 'GET',
        path: `${location}/items`,
        query: `limit=2&cursor=${firstPage.body.nextCursor}`,
      });
      expect(secondPage.body.items.map((item: { status: string }) => item.status)).toEqual([
        'provider_rejected',
        'corrected',
      ]);
      const held = firstPage.body.items[1];
      expect(held).toMatchObject({ status: 'pending_approval' });
      expect(held.approvalReason).toContain('destination');
      const bySelf = await call(h.api, { method: 'POST', path: held.approve, principal: 'alice' });
      expect(bySelf.status).toBe(403);
      const approved = await call(h.api, { method: 'POST', path: held.approve, principal: 'bob' });
      expect(approved.status).toBe(200);
      expect(patchCount()).toBe(before + 4);
      const done = await call(h.api, { method: 'GET', path: location });
      expect(done.body).toMatchObject({ status: 'completed', progress: { done: 4, total: 4 } });

      const csv = await call(h.api, { method: 'GET', path: `${location}/results.csv` });
      expect(csv.status).toBe(200);
      expect(csv.headers['content-type']).toContain('text/csv');
      const lines = String(csv.body).trim().split('\r\n');
      expect(lines[0]).toBe(
        'row,bulkPayoutItemId,status,isValid,reason,correctionId,failureCode,failureMessage,issues,updatedAt',
      );
      expect(lines.slice(1).map((line) => line.split(',')[2])).toEqual([
        'corrected',
        'still_invalid',
        'provider_rejected',
        'corrected',
      ]);
      const listed = await call(h.api, { method: 'GET', path: '/bulk-correction-jobs', query: 'limit=1' });
      expect(listed.body.items[0].jobId).toBe(accepted.body.jobId);
    });

    it('holds a job row at or above the approval threshold for a second person, and sends no job row while payouts are paused', async () => {
      const before = patchCount();
      const threshold = payoutEngineOf(h.runtime).ctx.config.approvalThresholdKobo;
      const large = await call(h.api, {
        method: 'POST',
        path: '/bulk-payout-items/corrections',
        principal: 'alice',
        body: { corrections: [{ bulkPayoutItemId: validIds[2], amount: threshold }] },
      });
      await h.drain();
      const heldRows = await call(h.api, { method: 'GET', path: `${large.headers.location}/items` });
      expect(heldRows.body.items).toMatchObject([{ status: 'pending_approval' }]);
      expect(heldRows.body.items[0].approvalReason).toContain('threshold');
      await pausePayouts(payoutEngineOf(h.runtime).ctx, { id: 'ops', kind: 'user' }, 'incident');
      try {
        const accepted = await call(h.api, {
          method: 'POST',
          path: '/bulk-payout-items/corrections',
          principal: 'alice',
          body: { corrections: [{ bulkPayoutItemId: validIds[0], narration: 'while paused' }] },
        });
        await h.drain();
        const rows = await call(h.api, { method: 'GET', path: `${accepted.headers.location}/items` });
        expect(rows.body.items).toMatchObject([{ status: 'paused', failure: { code: 'PAYOUTS_PAUSED' } }]);
        // Approving the held row while paused sends nothing either.
        const approval = await call(h.api, {
          method: 'POST',
          path: heldRows.body.items[0].approve,
          principal: 'bob',
        });
        expect(approval.status).toBe(409);
      } finally {
        await resumePayouts(payoutEngineOf(h.runtime).ctx, { id: 'ops', kind: 'user' });
      }
      expect(patchCount()).toBe(before);
    });

    it('completes a job with every row once when a worker dies mid-batch: none sent twice, the one it left claimed is unknown', async () => {
      const rows = Array.from({ length: 30 }, (_, index) => ({
        id: ids[index % ids.length] ?? '',
        narration: `July salaries ${index}`,
      }));
      const before = patchCount();
      // The first invocation's worker dies right after the provider answered its 5th row, before recording
      // it: the process is gone, so Lambda deletes none of its messages.
      let recorded = 0;
      class DyingStore extends DynamoDbCorrectionJobStore {
        override async transition(...args: Parameters<DynamoDbCorrectionJobStore['transition']>) {
          if (args[1] === 'sending' && ++recorded === 5) throw new Error('simulated: the worker died');
          return super.transition(...args);
        }
      }
      const workerRuntime = createRuntime(
        {
          TABLE_NAME: h.runtime.tableName,
          DYNAMODB_ENDPOINT: h.runtime.env.DYNAMODB_ENDPOINT ?? '',
          PROVIDER_BASE_URL: h.sandbox.url,
          PROVIDER_TOKEN: h.sandbox.token,
          PROVIDER_PIN: h.sandbox.pin,
        },
        { logger: silentLogger },
      );
      const dyingJobs = new CorrectionJobService({
        store: new DyingStore(workerRuntime.dynamoDb, workerRuntime.tableName),
        corrections: bulkCorrectionsOf(workerRuntime),
        limits: workerRuntime.payouts.ctx.config,
        queue: undefined,
        logger: silentLogger,
      });
      let died = false;
      h.worker = async (event, context) => {
        died = true;
        h.worker = h.healthyWorker;
        await runQueueBatch(
          {
            submit: async () => ({ response: { batchItemFailures: [] }, report: {} as never }),
            jobs: dyingJobs,
          },
          event,
          context.getRemainingTimeInMillis(),
          silentLogger,
        );
        throw new Error('simulated: the invocation died');
      };
      try {
        const accepted = await call(h.api, {
          method: 'POST',
          path: '/bulk-payout-items/corrections',
          principal: 'alice',
          headers: { 'content-type': 'text/csv' },
          body: csvOf(rows),
        });
        expect(accepted.status).toBe(202);
        await h.drain();
        expect(died).toBe(true);
        const location = accepted.headers.location ?? '';
        const job = await call(h.api, { method: 'GET', path: location });
        expect(job.body.status).toBe('completed');
        // Half the sandbox's items stay invalid whatever their narration (still_invalid); which row was left
        // claimed depends on how the workers interleaved.
        const { corrected = 0, still_invalid: stillInvalid = 0, unknown, ...others } = job.body.counts;
        expect({ sent: corrected + stillInvalid, unknown, others }).toEqual({
          sent: 29,
          unknown: 1,
          others: {},
        });
        // Every row reached the provider exactly once, the one left claimed included; none twice.
        expect(patchCount() - before).toBe(30);
        const items: { status: JobItemStatus; failure?: { code: string } }[] = [];
        let cursor: string | undefined;
        do {
          const page = await call(h.api, {
            method: 'GET',
            path: `${location}/items`,
            query: `limit=20${cursor ? `&cursor=${cursor}` : ''}`,
          });
          items.push(...page.body.items);
          cursor = page.body.nextCursor;
        } while (cursor);
        expect(items).toHaveLength(30);
        expect(items.filter((item) => item.status === 'unknown').map((item) => item.failure?.code)).toEqual([
          'WORKER_STOPPED',
        ]);
      } finally {
        await workerRuntime.close();
      }
    });

    it('hands a job the queue refused to the workers from the sweeper, with no person requeueing it; each row once', async () => {
      // SQS refusing a SendMessageBatch on demand is a fault neither SQS nor its local stand-in can be made to
      // produce, so the queue port is wrapped: it refuses while `refusing` is set, then sends to the stand-in.
      const queue = submissionsOf(h.runtime);
      if (!queue) throw new Error('the harness queues correction jobs');
      let refusing = true;
      const flaky = {
        async send(messages: Parameters<typeof queue.send>[0]) {
          if (refusing) throw new Error('SendMessageBatch refused every entry');
          await queue.send(messages);
        },
      };
      const clock = new ManualClock(new Date());
      const store = new DynamoDbCorrectionJobStore(h.runtime.dynamoDb, h.runtime.tableName);
      const jobs = new CorrectionJobService({
        store,
        corrections: bulkCorrectionsOf(h.runtime),
        limits: payoutEngineOf(h.runtime).ctx.config,
        queue: flaky,
        clock,
        logger: silentLogger,
      });
      const before = patchCount();
      const refused = await jobs
        .submit(
          [
            { bulkPayoutItemId: validIds[0], narration: 'July salaries' },
            { bulkPayoutItemId: validIds[1], narration: 'July salaries' },
          ],
          'json',
          { id: 'alice', kind: 'user' },
        )
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CorrectionJobNotEnqueuedError);
      const jobId = (refused as CorrectionJobNotEnqueuedError).jobId;
      const sweeperParts = { store, queue: flaky, clock, logger: silentLogger };
      const tick = () => enqueuePendingJobs(sweeperParts, { stopStartingAt: Date.now() + 60_000 });

      // Not due before its first retry; then due, but the queue still refuses: tried again later, not lost.
      expect(await tick()).toEqual({ enqueued: 0, stillPending: 0 });
      clock.advance(ENQUEUE_RETRY_DELAY_MS);
      expect(await tick()).toEqual({ enqueued: 0, stillPending: 1 });
      clock.advance(ENQUEUE_RETRY_DELAY_MS);
      expect(await tick()).toEqual({ enqueued: 0, stillPending: 0 });

      // The queue takes messages again: a later tick hands the job over, and the workers work every row once.
      refusing = false;
      clock.advance(2 * ENQUEUE_RETRY_DELAY_MS);
      expect(await tick()).toEqual({ enqueued: 1, stillPending: 0 });
      await h.drain();
      const job = await call(h.api, { method: 'GET', path: `/bulk-correction-jobs/${jobId}` });
      expect(job.body).toMatchObject({ status: 'completed', progress: { done: 2, total: 2 } });
      expect(patchCount() - before).toBe(2);
      // Handed over: no later tick sends it again.
      clock.advance(60 * 60_000);
      expect(await tick()).toEqual({ enqueued: 0, stillPending: 0 });
    });

    it('answers 404 for an unknown job and 400 for a cursor of another job', async () => {
      const unknown = await call(h.api, {
        method: 'GET',
        path: '/bulk-correction-jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV',
      });
      expect(unknown.status).toBe(404);
      const malformed = await call(h.api, { method: 'GET', path: '/bulk-correction-jobs/nope/items' });
      expect(malformed.status).toBe(404);
      const listed = await call(h.api, { method: 'GET', path: '/bulk-correction-jobs' });
      const [a, b] = listed.body.items;
      const page = await call(h.api, {
        method: 'GET',
        path: `/bulk-correction-jobs/${a.jobId}/items`,
        query: 'limit=1',
      });
      const crossed = await call(h.api, {
        method: 'GET',
        path: `/bulk-correction-jobs/${b.jobId}/items`,
        query: `cursor=${page.body.nextCursor}`,
      });
      expect(crossed.status).toBe(400);
    });
  });
});
