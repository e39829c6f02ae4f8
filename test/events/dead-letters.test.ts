import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiHandler, createApiHandler } from '../../lib/api/index.js';
import { API_DEADLINES } from '../../lib/api/request-deadline.js';
import { apiContextFrom } from '../../lib/api/services-from-runtime.js';
import {
  DEAD_LETTER_REPLAY_LEASE_MS,
  type DeadLettered,
  DeadLetterService,
  DynamoDbDeadLetterStore,
  type ReplayClaim,
  withDeadLetter,
} from '../../lib/events/dead-letters/index.js';
import {
  type InboundDelivery,
  type InboundHandler,
  inboundEventHandlers,
} from '../../lib/events/inbound-handlers.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { createRuntime, type Runtime } from '../../lib/runtime/runtime.js';
import { settlementsOf } from '../../lib/runtime/settlements.js';
import { DocumentClient, PutCommand, UpdateCommand } from '../../lib/shared/document-client.js';
import { FIELD_MAXIMA } from '../../lib/shared/field-limits.js';
import { ulid } from '../../lib/shared/ids.js';
import { listingAttributes } from '../../lib/shared/index-listing.js';
import { checkedAgainstContract } from '../api/support/contract.js';
import { type ApiHarness, asDeployed, call, startApiHarness } from '../api/support/harness.js';
import { bankTransfer } from '../support/engine-harness.js';
import { iamChecked } from '../support/iam/checked-calls.js';
import { payoutRequested } from './support.js';

describe('dead-lettered events (ops API)', () => {
  let h: ApiHarness;
  /** The same table and provider under a stricter maximum: what refused the event before the limit was raised. */
  let strict: Runtime;

  beforeAll(async () => {
    h = await startApiHarness();
    strict = createRuntime(
      {
        TABLE_NAME: h.tableName,
        DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint'),
        PROVIDER_BASE_URL: h.sandbox.url,
        PROVIDER_TOKEN: h.sandbox.token,
        PROVIDER_PIN: h.sandbox.pin,
        MAX_PAYOUT_KOBO: '100000',
      },
      // It delivers events as the rule's target does: checked against that function's role.
      { awsCalls: iamChecked('payout-requested') },
    );
  });
  afterAll(async () => {
    await strict.close();
    await h.close();
  });

  /** Delivers an event as the rule would, with the strict runtime; answers the dead letter's id. */
  async function deadLetter(id: string, detail: Record<string, unknown>): Promise<string> {
    const store = new DynamoDbDeadLetterStore(strict.dynamoDb, strict.tableName);
    const deliver = withDeadLetter(
      inboundEventHandlers({
        engine: payoutEngineOf(strict),
        settlements: settlementsOf(strict),
        logger: strict.logger,
      })['Payout Requested'],
      store,
    );
    const outcome = (await deliver(payoutRequested(id, detail))) as Partial<DeadLettered>;
    if (!outcome.deadLettered || !outcome.id) throw new Error('expected a dead letter');
    return outcome.id;
  }

  /**
   * The ops API as the harness serves it, but with the `Payout Requested` handler of a replay run `around` the
   * real one: a test holds a replay inside its handler, or fails it there.
   */
  function apiAround(
    around: (real: InboundHandler, event: unknown, delivery?: InboundDelivery) => Promise<unknown>,
  ): ApiHandler {
    const handlers = inboundEventHandlers({
      engine: payoutEngineOf(h.runtime),
      settlements: settlementsOf(h.runtime),
      logger: h.runtime.logger,
    });
    const real = handlers['Payout Requested'];
    const deadLetters = new DeadLetterService(new DynamoDbDeadLetterStore(h.runtime.dynamoDb, h.tableName), {
      ...handlers,
      'Payout Requested': (event, delivery) => around(real, event, delivery),
    });
    return checkedAgainstContract(
      asDeployed(createApiHandler({ ...apiContextFrom(h.runtime), deadLetters })),
    );
  }

  /** Writes a replay's claim on the letter as a replay would, e.g. one that crashed inside its handler. */
  async function claimOf(id: string, claim: ReplayClaim): Promise<void> {
    await DocumentClient.from(h.runtime.dynamoDb).send(
      new UpdateCommand({
        TableName: h.tableName,
        Key: { pk: `DEAD_LETTER#${id}`, sk: 'LETTER' },
        UpdateExpression: 'SET replayClaim = :claim',
        ExpressionAttributeValues: { ':claim': claim },
      }),
    );
  }

  async function paidWith(narration: string) {
    const listed = await call(h.api, { method: 'GET', path: '/payouts', query: 'limit=100' });
    return listed.body.items.filter((p: { narration: string }) => p.narration === narration);
  }

  it('an invalid event is listed as open with the field that is wrong, not only logged', async () => {
    const id = await deadLetter('evt-invalid-1', {
      version: '1',
      payout: bankTransfer(250_000),
      priority: 'high',
    });
    const open = await call(h.api, { method: 'GET', path: '/dead-letters', query: 'status=open' });
    expect(open.status).toBe(200);
    const letter = open.body.items.find((item: { id: string }) => item.id === id);
    expect(letter).toMatchObject({ status: 'open', detailType: 'Payout Requested' });
    expect(letter.error.issues.map((issue: { path: string }) => issue.path)).toContain('detail.priority');
  });

  it('replays an event refused under an old limit: delivered once, paid once, recorded with who replayed it', async () => {
    const id = await deadLetter('evt-over-max', {
      version: '1',
      idempotencyKey: 'inv-over-old-max',
      payout: bankTransfer(250_000, { narration: 'refused yesterday' }),
    });
    const [first, second] = await Promise.all([
      call(h.api, { method: 'POST', path: `/dead-letters/${id}/replay`, principal: 'alice' }),
      call(h.api, { method: 'POST', path: `/dead-letters/${id}/replay`, principal: 'bob' }),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses[1]).toBe(409);
    const delivered = first.status === 200 ? first : second;
    expect(delivered.body).toMatchObject({ delivered: true, letter: { status: 'replayed' } });
    expect(delivered.body.letter.actions).toHaveLength(1);
    const listed = await call(h.api, { method: 'GET', path: '/payouts', query: 'limit=100' });
    const paid = listed.body.items.filter((p: { narration: string }) => p.narration === 'refused yesterday');
    expect(paid).toHaveLength(1);
    expect(paid[0].status).toBe('succeeded');
  });

  it('refuses a discard and a second replay while a replay is inside its handler: the letter ends replayed, paid once', async () => {
    const id = await deadLetter('evt-replay-vs-discard', {
      version: '1',
      idempotencyKey: 'inv-replay-vs-discard',
      payout: bankTransfer(250_000, { narration: 'replayed while discarded' }),
    });
    let inside!: () => void;
    let release!: () => void;
    const entered = new Promise<void>((resolve) => {
      inside = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The payout is created and paid, then the replay waits before recording it: where the discard used to win.
    const held = apiAround(async (real, event, delivery) => {
      const outcome = await real(event, delivery);
      inside();
      await released;
      return outcome;
    });
    const replaying = call(held, { method: 'POST', path: `/dead-letters/${id}/replay`, principal: 'alice' });
    await entered;

    const discard = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/discard`,
      principal: 'bob',
      body: { reason: 'sent by mistake' },
    });
    expect(discard.status).toBe(409);
    expect(discard.body.detail).toContain('being replayed by alice');
    const second = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'bob',
    });
    expect(second.status).toBe(409);
    expect(second.body.detail).toContain('being replayed by alice');
    release();

    const replayed = await replaying;
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ delivered: true, letter: { status: 'replayed' } });
    const read = await call(h.api, { method: 'GET', path: `/dead-letters/${id}` });
    expect(read.body.status).toBe('replayed');
    expect(read.body.actions).toEqual([
      expect.objectContaining({
        action: 'replay',
        by: expect.objectContaining({ id: 'alice' }),
        note: 'delivered',
      }),
    ]);
    const paid = await paidWith('replayed while discarded');
    expect(paid).toHaveLength(1);
    expect(paid[0].status).toBe('succeeded');
    expect(
      (await new DynamoDbDeadLetterStore(h.runtime.dynamoDb, h.tableName).get(id))?.replayClaim,
    ).toBeUndefined();
  });

  it('a live claim holds the letter, naming who replays it; one past its lease (a crashed replay) does not block', async () => {
    // The lease outlasts the ops API function that replays (its timeout), so it never lapses under a live replay.
    expect(DEAD_LETTER_REPLAY_LEASE_MS).toBeGreaterThan(API_DEADLINES.localBudgetMs);
    const id = await deadLetter('evt-crashed-replay', {
      version: '1',
      idempotencyKey: 'inv-crashed-replay',
      payout: bankTransfer(250_000, { narration: 'replayed after a crash' }),
    });
    const carol = { id: 'carol', kind: 'user' as const };
    await claimOf(id, {
      by: carol,
      claimId: ulid(),
      leaseUntil: new Date(Date.now() + 60_000).toISOString(),
    });
    const blocked = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'alice',
    });
    expect(blocked.status).toBe(409);
    expect(blocked.body.detail).toContain('being replayed by carol');
    const discard = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/discard`,
      principal: 'bob',
      body: { reason: 'sent by mistake' },
    });
    expect(discard.status).toBe(409);

    await claimOf(id, { by: carol, claimId: ulid(), leaseUntil: new Date(Date.now() - 1_000).toISOString() });
    const replayed = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'alice',
    });
    expect(replayed.status).toBe(200);
    expect(replayed.body.letter).toMatchObject({ status: 'replayed' });
    expect(replayed.body.letter.actions).toHaveLength(1);
    expect(await paidWith('replayed after a crash')).toHaveLength(1);
    expect(
      (await new DynamoDbDeadLetterStore(h.runtime.dynamoDb, h.tableName).get(id))?.replayClaim,
    ).toBeUndefined();
  });

  it('a replay that fails otherwise than by refusing the event lets go of its claim and records nothing', async () => {
    const id = await deadLetter('evt-replay-fails', {
      version: '1',
      idempotencyKey: 'inv-replay-fails',
      payout: bankTransfer(250_000, { narration: 'replayed after a failure' }),
    });
    const failing = apiAround(async () => {
      throw new Error('the provider went away');
    });
    const failed = await call(failing, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'alice',
    });
    expect(failed.status).toBe(500);
    const read = await call(h.api, { method: 'GET', path: `/dead-letters/${id}` });
    expect(read.body).toMatchObject({ status: 'open', actions: [] });
    // Free at once, not only when the lease lapses.
    const replayed = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'alice',
    });
    expect(replayed.status).toBe(200);
  });

  it('keeps a letter open when the replay is refused again, and discards it with a reason, once', async () => {
    const id = await deadLetter('evt-bad-version', { version: '9', payout: bankTransfer(250_000) });
    const again = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'alice',
    });
    expect(again.status).toBe(422);
    expect(again.body.letter).toMatchObject({ status: 'open' });
    expect(again.body.letter.actions[0]).toMatchObject({ action: 'replay', by: { id: 'alice' } });
    expect(again.body.letter.actions[0].note).toContain('detail.version');

    const noReason = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/discard`,
      principal: 'bob',
      body: {},
    });
    expect(noReason.status).toBe(400);
    const discarded = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/discard`,
      principal: 'bob',
      body: { reason: 'billing sent a v9 event by mistake' },
    });
    expect(discarded.status).toBe(200);
    expect(discarded.body).toMatchObject({ status: 'discarded' });
    expect(discarded.body.actions[1]).toMatchObject({
      action: 'discard',
      by: { id: 'bob' },
      note: 'billing sent a v9 event by mistake',
    });
    const replayDiscarded = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'alice',
    });
    expect(replayDiscarded.status).toBe(409);
    const byStatus = await call(h.api, { method: 'GET', path: '/dead-letters', query: 'status=discarded' });
    expect(byStatus.body.items.map((item: { id: string }) => item.id)).toContain(id);
  });

  it('reads and replays a letter written before events were kept as JSON (the event as DynamoDB maps)', async () => {
    const at = new Date();
    const id = ulid(at);
    const event = payoutRequested('evt-old-form', {
      version: '1',
      idempotencyKey: 'inv-old-form',
      payout: bankTransfer(250_000, { narration: 'old form letter' }),
    });
    // As the store wrote a letter before: every field of the letter spread into the item, the event as maps.
    await DocumentClient.from(strict.dynamoDb).send(
      new PutCommand({
        TableName: h.tableName,
        Item: {
          pk: `DEAD_LETTER#${id}`,
          sk: 'LETTER',
          entity: 'dead-letter',
          id,
          event,
          detailType: 'Payout Requested',
          error: {
            name: 'InvalidEventError',
            code: 'INVALID_EVENT',
            message: 'invalid event evt-old-form: detail.payout.amount: above the maximum',
            issues: [{ path: 'detail.payout.amount', message: 'above the maximum' }],
          },
          at: at.toISOString(),
          status: 'open',
          actions: [],
          ...listingAttributes(
            { statePartition: (status) => `DEAD_LETTER#STATUS#${status}`, allPartition: 'DEAD_LETTER#ALL' },
            'open',
            at.toISOString(),
            id,
          ),
        },
      }),
    );
    const open = await call(h.api, { method: 'GET', path: '/dead-letters', query: 'status=open&limit=100' });
    expect(open.body.items.map((item: { id: string }) => item.id)).toContain(id);
    const read = await call(h.api, { method: 'GET', path: `/dead-letters/${id}` });
    expect(read.status).toBe(200);
    expect(read.body.event).toEqual(event);
    const replayed = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'alice',
    });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ delivered: true, letter: { status: 'replayed' } });
    const listed = await call(h.api, { method: 'GET', path: '/payouts', query: 'limit=100' });
    expect(
      listed.body.items.filter((p: { narration: string }) => p.narration === 'old form letter'),
    ).toHaveLength(1);
  });

  it('lists an event too large for any item, by its id, type and size, and it is put aside, never delivered', async () => {
    // 600 KB of noise (no EventBridge event is so large; gzip leaves it over 400 KB): the letter keeps its start.
    const id = await deadLetter('evt-far-too-large', {
      version: '1',
      payout: bankTransfer(250_000, { narration: 'far too large' }),
      noise: randomBytes(450_000).toString('base64'),
    });
    const open = await call(h.api, { method: 'GET', path: '/dead-letters', query: 'status=open&limit=100' });
    const listed = open.body.items.find((item: { id: string }) => item.id === id);
    expect(listed).toMatchObject({ status: 'open', detailType: 'Payout Requested' });
    expect(listed.error.issues.map((issue: { path: string }) => issue.path)).toContain('detail.noise');
    const stored = await new DynamoDbDeadLetterStore(strict.dynamoDb, h.tableName).get(id);
    expect(stored?.eventTooLarge).toMatchObject({ eventId: 'evt-far-too-large' });
    expect(stored?.eventTooLarge?.bytes).toBeGreaterThan(600_000);

    const replay = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'alice',
    });
    expect(replay.status).toBe(409);
    const payouts = await call(h.api, { method: 'GET', path: '/payouts', query: 'limit=100' });
    expect(payouts.body.items.filter((p: { narration: string }) => p.narration === 'far too large')).toEqual(
      [],
    );
    const discarded = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/discard`,
      principal: 'bob',
      body: { reason: 'too large to keep; billing re-sends it' },
    });
    expect(discarded.status).toBe(200);
    expect(discarded.body).toMatchObject({ status: 'discarded' });
  });

  it('a letter too large to keep shows the size and start it kept, and its replay is 409 with nothing recorded', async () => {
    const id = await deadLetter('evt-too-large-view', {
      version: '1',
      payout: bankTransfer(250_000, { narration: 'too large to view' }),
      noise: randomBytes(450_000).toString('base64'),
    });
    const stored = await new DynamoDbDeadLetterStore(h.runtime.dynamoDb, h.tableName).get(id);
    const bytes = stored?.eventTooLarge?.bytes;
    expect(bytes).toBeGreaterThan(600_000);
    const kept = String(stored?.event);
    expect(kept.startsWith('{"version":"0","id":"evt-too-large-view"')).toBe(true);

    const read = await call(h.api, { method: 'GET', path: `/dead-letters/${id}` });
    expect(read.status).toBe(200);
    expect(read.body.eventBytes).toBe(bytes);
    expect(read.body.eventPreview).toBe(kept);
    expect(read.body).not.toHaveProperty('event');
    const open = await call(h.api, { method: 'GET', path: '/dead-letters', query: 'status=open&limit=100' });
    const listed = open.body.items.find((item: { id: string }) => item.id === id);
    expect(listed.eventBytes).toBe(bytes);
    expect(kept.startsWith(listed.eventPreview.slice(0, -1))).toBe(true);

    const replay = await call(h.api, {
      method: 'POST',
      path: `/dead-letters/${id}/replay`,
      principal: 'alice',
    });
    expect(replay.status).toBe(409);
    expect(replay.body.detail).toContain('cannot be replayed');
    const after = await call(h.api, { method: 'GET', path: `/dead-letters/${id}` });
    expect(after.body).toMatchObject({ status: 'open', actions: [] });
    expect(await paidWith('too large to view')).toEqual([]);
  });

  it('counts the issues the letter left out (it keeps the first 50) in what it answers', async () => {
    // Each metadata key that is not a plain name is an issue of its own.
    const metadata = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`${i}bad`, 1]));
    const id = await deadLetter('evt-issues-omitted', {
      version: '1',
      payout: bankTransfer(250_000, { metadata }),
    });
    const stored = await new DynamoDbDeadLetterStore(h.runtime.dynamoDb, h.tableName).get(id);
    const all = (stored?.error.issues.length ?? 0) + (stored?.error.issuesOmitted ?? 0);
    expect(stored?.error.issuesOmitted).toBeGreaterThan(0);

    const read = await call(h.api, { method: 'GET', path: `/dead-letters/${id}` });
    expect(read.body.error.issues).toHaveLength(FIELD_MAXIMA.issues);
    expect(read.body.error.issuesOmitted).toBe(all - FIELD_MAXIMA.issues);
    const open = await call(h.api, { method: 'GET', path: '/dead-letters', query: 'status=open&limit=100' });
    const listed = open.body.items.find((item: { id: string }) => item.id === id);
    expect(listed.error.issues).toHaveLength(FIELD_MAXIMA.rowIssues);
    expect(listed.error.issuesOmitted).toBe(all - FIELD_MAXIMA.rowIssues);
  });

  it('answers 404 for an unknown letter and 400 for a tampered cursor', async () => {
    expect(
      (await call(h.api, { method: 'GET', path: '/dead-letters/01JAAAAAAAAAAAAAAAAAAAAAAA' })).status,
    ).toBe(404);
    expect((await call(h.api, { method: 'GET', path: '/dead-letters/not-an-id' })).status).toBe(404);
    const tampered = await call(h.api, { method: 'GET', path: '/dead-letters', query: 'cursor=eyJpZCI6MX0' });
    expect(tampered.status).toBe(400);
    expect(tampered.body.errors[0].path).toBe('cursor');
  });
});
