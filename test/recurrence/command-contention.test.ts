import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { problemFor } from '../../lib/api/problem.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { occurrenceKey } from '../../lib/recurrence/materialise.js';
import type { Recurrence, RecurrenceAuditEvent } from '../../lib/recurrence/model.js';
import { OccurrenceState, RecurrenceStatus } from '../../lib/recurrence/model.js';
import { RecurrenceService } from '../../lib/recurrence/recurrence-service.js';
import { DynamoDbRecurrenceStore } from '../../lib/recurrence/store/dynamodb-recurrence-store.js';
import { ConcurrentModificationError } from '../../lib/shared/errors.js';
import { silentLogger } from '../../lib/shared/logger.js';
import { alice, bob } from '../support/engine-harness.js';
import { replaceMethod } from '../support/replace-method.js';
import { dailyRule, type RecurrenceHarness, startRecurrenceHarness } from './support.js';

/**
 * A command on a recurring payout that changes occurrence records (a skip, a pause's holds) and then loses its own
 * write to concurrent ones every time it tries, answering 409: every record it changed must carry an audit event
 * naming who changed it (recurring payouts review).
 */
let h: RecurrenceHarness;
beforeAll(async () => {
  h = await startRecurrenceHarness();
});
afterAll(async () => h.close());
// Each test's rule ends with it, so that the next test's ticks see only their own.
afterEach(async () => {
  for (const status of [RecurrenceStatus.Active, RecurrenceStatus.Paused]) {
    const { items } = await h.recurrences.list({ status, limit: 100 });
    for (const r of items) await h.recurrences.cancel(r.id, alice);
  }
});

/** Lagos local time (UTC+01:00) on a day, as an instant; the clock never goes backwards (the sandbox shares it). */
const lagos = (day: string, time: string) => h.clock.set(new Date(`${day}T${time}:00+01:00`).toISOString());

const actionsOf = (audit: readonly RecurrenceAuditEvent[]) => audit.map((event) => event.action);

/**
 * The recurrence service over the real store, with a concurrent writer landing between each of the next `times`
 * command writes' read and the write itself: a real conditional write on DynamoDB Local (the version step a tick's
 * materialisation makes, `SET version = version + 1`), so the command's own write fails its version condition for
 * real. The wrapper only chooses when that writer lands; no AWS client is mocked.
 */
function contended(times: number): { service: RecurrenceService; landed: () => number } {
  let landed = 0;
  const store = replaceMethod(h.recurrenceStore, 'replace', async (before, after, audit) => {
    if (audit && landed < times) {
      landed++;
      const current = (await h.recurrenceStore.get(before.id)) as Recurrence;
      await h.recurrenceStore.replace(current, { ...current, version: current.version + 1 });
    }
    return h.recurrenceStore.replace(before, after, audit);
  });
  return { service: new RecurrenceService({ ...h.recurrences.ctx, store }), landed: () => landed };
}

/** Creates a daily 11:02 rule on `day` and lets a tick materialise that day's occurrence (a scheduled payout). */
async function ruleWithTodaysPayout(day: string, key: string) {
  lagos(day, '09:00');
  const { recurrence } = await h.recurrences.create({
    request: dailyRule({ startDate: day, timeOfDay: '11:02', narration: key }),
    idempotencyKey: key,
    actor: alice,
  });
  lagos(day, '10:55');
  expect((await h.tick()).recurrences.materialised).toBe(1);
  const payout = await h.engine.get(
    (await h.listing.list({ limit: 100 })).items.find(
      (p) => p.idempotencyKey === occurrenceKey(recurrence.id, day),
    )?.id ?? '',
  );
  expect(payout?.status).toBe(PayoutStatus.Scheduled);
  return { recurrence, payoutId: payout?.id ?? '' };
}

/** The command's failure as the API answers it. */
async function answered(command: Promise<unknown>) {
  const error = await command.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ConcurrentModificationError);
  return problemFor(error, silentLogger);
}

describe('a command that gives up on contention (409) leaves no occurrence change unaudited', () => {
  it('skip: the occurrence it recorded skipped (its payout cancelled) has its audit event, naming who and why', async () => {
    const day = '2026-05-04';
    const { recurrence, payoutId } = await ruleWithTodaysPayout(day, 'contended-skip');
    const read = await h.recurrences.get(recurrence.id);
    const { service, landed } = contended(Number.POSITIVE_INFINITY);

    const problem = await answered(service.skip(recurrence.id, day, bob, 'paid by hand'));
    expect(problem).toMatchObject({
      status: 409,
      type: 'urn:payout-automation:problem:concurrent-modification',
    });
    expect(landed()).toBe(4); // the first write and its three retries, each lost to a concurrent one

    // The skip was recorded by the first attempt (the payout cancelled, the record skipped) ...
    expect((await h.engine.get(payoutId))?.status).toBe(PayoutStatus.Cancelled);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, day)).toMatchObject({
      state: OccurrenceState.Skipped,
      payoutId,
      reason: 'skipped by bob: paid by hand',
    });
    // ... and so is who did it: the command's provisional event, committed with the record, says it did not commit.
    const { audit, recurrence: after } = await h.recurrences.view(recurrence.id);
    expect(after.skippedDates).toEqual([]);
    expect(actionsOf(audit)).toEqual(['created', 'skipped']);
    expect(audit[1]).toMatchObject({
      actor: bob,
      action: 'skipped',
      sequence: read.version, // the version its first attempt read, which it did not change
      reason: expect.stringMatching(
        /^not committed .*; occurrence of 2026-05-04 skipped by bob: paid by hand$/,
      ),
    });

    // The same skip again, without contention, finds it skipped and changes nothing; the trail keeps who did it.
    await h.recurrences.skip(recurrence.id, day, bob, 'paid by hand');
    expect(actionsOf((await h.recurrences.view(recurrence.id)).audit)).toEqual(['created', 'skipped']);
    lagos(day, '11:02');
    await h.tick();
    expect((await h.engine.get(payoutId))?.status).toBe(PayoutStatus.Cancelled);
  });

  it('pause: the occurrence it held (its payout cancelled) has its audit event; the rule stays active', async () => {
    const day = '2026-05-06';
    const { recurrence, payoutId } = await ruleWithTodaysPayout(day, 'contended-pause');
    const { service } = contended(Number.POSITIVE_INFINITY);

    const problem = await answered(service.pause(recurrence.id, bob, 'supplier dispute'));
    expect(problem.status).toBe(409);

    expect((await h.engine.get(payoutId))?.status).toBe(PayoutStatus.Cancelled);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, day)).toMatchObject({
      state: OccurrenceState.Held,
      payoutId,
    });
    const { audit, recurrence: after } = await h.recurrences.view(recurrence.id);
    expect(after.status).toBe(RecurrenceStatus.Active);
    expect(actionsOf(audit)).toEqual(['created', 'paused']);
    expect(audit[1]).toMatchObject({
      actor: bob,
      action: 'paused',
      reason: expect.stringMatching(/^not committed .*; paused by bob$/),
    });

    // The pause again finds the held occurrence and goes back to it; the resume before its time pays it, once.
    lagos(day, '10:56');
    expect(await h.recurrences.pause(recurrence.id, bob, 'supplier dispute')).toMatchObject({
      status: RecurrenceStatus.Paused,
      nextLocalDate: day,
    });
    await h.recurrences.resume(recurrence.id, bob);
    expect(actionsOf((await h.recurrences.view(recurrence.id)).audit)).toEqual([
      'created',
      'paused',
      'paused',
      'resumed',
    ]);
    await h.tick();
    lagos(day, '11:02');
    await h.tick();
    const payouts = (await h.listing.list({ limit: 100 })).items.filter((p) =>
      [occurrenceKey(recurrence.id, day), occurrenceKey(recurrence.id, day, 2)].includes(p.idempotencyKey),
    );
    expect(payouts.map((p) => p.status).sort()).toEqual([PayoutStatus.Cancelled, PayoutStatus.Succeeded]);
  });

  it('a command that commits after losing some tries shows its own event alone: it supersedes the provisional one', async () => {
    const day = '2026-05-08';
    const { recurrence, payoutId } = await ruleWithTodaysPayout(day, 'contended-then-committed');
    const { service, landed } = contended(2);

    const paused = await service.pause(recurrence.id, bob, 'checking the account');
    expect(landed()).toBe(2);
    expect(paused).toMatchObject({ status: RecurrenceStatus.Paused, nextLocalDate: day });
    expect((await h.engine.get(payoutId))?.status).toBe(PayoutStatus.Cancelled);
    const { audit } = await h.recurrences.view(recurrence.id);
    expect(actionsOf(audit)).toEqual(['created', 'paused']);
    expect(audit[1]).toMatchObject({ actor: bob, reason: 'checking the account', sequence: paused.version });
  });
});

/**
 * The recurrence service over a store whose DynamoDB client answers the first `conflicts` TransactWriteItems calls
 * with a cancellation for `TransactionConflict` on their first action, as AWS does when another transaction holds
 * the item at that moment. DynamoDB Local serialises transactions instead and never produces it on demand, so this
 * fault is injected (a middleware on a real client); every other call, and every call after, goes to DynamoDB
 * Local. `sent` lists the sort keys of each TransactWriteItems call that reached it, action by action.
 */
function conflictingFirst(conflicts: number) {
  const client = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
  let injected = 0;
  const sent: string[][] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand') {
        if (injected < conflicts) {
          injected++;
          throw new TransactionCanceledException({
            message:
              'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]',
            $metadata: {},
            CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
          });
        }
        const { TransactItems = [] } = args.input as {
          TransactItems?: {
            Put?: { Item?: { sk?: { S?: string } } };
            Update?: { Key?: { sk?: { S?: string } } };
          }[];
        };
        sent.push(TransactItems.map((item) => item.Update?.Key?.sk?.S ?? item.Put?.Item?.sk?.S ?? '?'));
      }
      return next(args);
    },
    { step: 'initialize', name: 'injectTransactionConflict' },
  );
  const service = new RecurrenceService({
    ...h.recurrences.ctx,
    store: new DynamoDbRecurrenceStore(client, h.tableName),
  });
  return { service, injected: () => injected, sent, close: () => client.destroy() };
}

describe('a transaction conflict on the occurrence write that carries the provisional event', () => {
  /** A daily 11:02 rule from `day`, read at 09:00: nothing materialised yet, so a skip ahead writes a new record. */
  async function ruleFrom(day: string, key: string) {
    lagos(day, '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: day, timeOfDay: '11:02', narration: key }),
      idempotencyKey: key,
      actor: alice,
    });
    return recurrence;
  }

  it('is sent again, not answered 409: the command takes effect with one audit event, the occurrence written once', async () => {
    const recurrence = await ruleFrom('2026-05-10', 'conflict-then-skip');
    const day = '2026-05-12';
    const { service, injected, sent, close } = conflictingFirst(1);

    const skipped = await service.skip(recurrence.id, day, bob, 'bank holiday');
    close();

    expect(injected()).toBe(1);
    expect(skipped).toMatchObject({ skippedDates: [day], version: recurrence.version + 1 });
    // What reached DynamoDB: the occurrence with the provisional event once (the same transaction, sent again
    // after the conflict), then the rule with the command's own event.
    expect(sent).toEqual([
      [`OCCURRENCE#${day}`, expect.stringMatching(/^AUDIT#000001#/)],
      ['RECURRENCE', 'AUDIT#000002'],
    ]);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, day)).toMatchObject({
      state: OccurrenceState.Skipped,
      reason: 'skipped by bob: bank holiday',
    });
    const { audit } = await h.recurrences.view(recurrence.id);
    expect(audit).toEqual([
      expect.objectContaining({ action: 'created', committed: true }),
      expect.objectContaining({
        action: 'skipped',
        actor: bob,
        sequence: recurrence.version + 1,
        reason: `occurrence of ${day} skipped by bob: bank holiday`,
        committed: true,
      }),
    ]);
  });

  it('answers 409 when the conflicts outlast its retries, having written nothing', async () => {
    const recurrence = await ruleFrom('2026-05-14', 'conflict-forever');
    const day = '2026-05-16';
    const { service, injected, sent, close } = conflictingFirst(Number.POSITIVE_INFINITY);

    const problem = await answered(service.skip(recurrence.id, day, bob, 'bank holiday'));
    close();

    expect(problem.status).toBe(409);
    expect(injected()).toBe(5); // the first try and four retries, each a whole transaction that wrote nothing
    expect(sent).toEqual([]);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, day)).toBeUndefined();
    const { audit, recurrence: after } = await h.recurrences.view(recurrence.id);
    expect(after).toMatchObject({ version: recurrence.version, skippedDates: [] });
    expect(actionsOf(audit)).toEqual(['created']);
  });
});
