import { describe, expect, it } from 'vitest';
import {
  DEAD_LETTER_REPLAY_LEASE_MS,
  DeadLetterService,
  DeadLetterStatus,
  deadLetterOf,
  InMemoryDeadLetterStore,
} from '../../lib/events/dead-letters/index.js';
import { InvalidEventError } from '../../lib/events/inbound-errors.js';
import type { InboundHandler } from '../../lib/events/inbound-handlers.js';
import { InboundEventType } from '../../lib/events/schemas.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { InvalidCursorError, InvalidTransitionError } from '../../lib/shared/errors.js';

/**
 * The dead-letter service against its store's port, in memory: the replay's claim, the four outcomes of a
 * replay, a discard. The table store's own rules are tested against DynamoDB Local (dead-letters.test.ts).
 */
const alice = { id: 'alice', kind: 'user' } as const;
const bob = { id: 'bob', kind: 'user' } as const;

function setUp(handler: InboundHandler) {
  const clock = new ManualClock('2026-03-02T09:00:00.000Z');
  const store = new InMemoryDeadLetterStore();
  const handlers = Object.fromEntries(
    Object.values(InboundEventType).map((type) => [type, handler]),
  ) as Record<InboundEventType, InboundHandler>;
  const service = new DeadLetterService(store, handlers, clock);
  const letterOf = async (detail: unknown = { amount: 'lots' }) => {
    const letter = deadLetterOf(
      { id: 'evt-1', 'detail-type': InboundEventType.PayoutRequested, detail },
      new InvalidEventError('evt-1', [{ path: 'detail.amount', message: 'expected a number' }]),
      clock.now(),
    );
    await store.send(letter);
    clock.advance(1_000);
    return letter;
  };
  return { clock, store, service, letterOf };
}

describe('replaying and discarding dead letters (the service on its port)', () => {
  it('delivers under a claim: a discard while the handler runs is refused naming the replayer, then the letter is replayed', async () => {
    let discardDuringReplay: unknown;
    const { service, letterOf } = setUp(async () => {
      discardDuringReplay = await service.discard(letter.id, bob, 'not ours').catch((error) => error);
      return { paid: true };
    });
    const letter = await letterOf();
    const result = await service.replay(letter.id, alice);
    expect(discardDuringReplay).toBeInstanceOf(InvalidTransitionError);
    expect(String(discardDuringReplay)).toContain('being replayed by alice');
    expect(result).toMatchObject({ delivered: true, outcome: { paid: true } });
    expect(result.letter.status).toBe(DeadLetterStatus.Replayed);
    expect(result.letter.replayClaim).toBeUndefined();
    expect(result.letter.actions).toEqual([
      { action: 'replay', by: alice, at: expect.any(String), note: 'delivered' },
    ]);
  });

  it('keeps a letter its handler refuses again open, noting the new error, and lets the next replay claim it', async () => {
    const { service, letterOf } = setUp(async () => {
      throw new InvalidEventError('evt-1', [{ path: 'detail.to', message: 'unknown bank' }]);
    });
    const letter = await letterOf();
    const first = await service.replay(letter.id, alice);
    expect(first.delivered).toBe(false);
    expect(first.letter.status).toBe(DeadLetterStatus.Open);
    expect(first.letter.actions[0]?.note).toContain(
      'refused again: invalid event evt-1: detail.to: unknown bank',
    );
    const second = await service.replay(letter.id, bob);
    expect(second.letter.actions.map((action) => action.by.id)).toEqual(['alice', 'bob']);
  });

  it('lets go of the claim when the handler fails otherwise, recording nothing, so a replay may start at once', async () => {
    let fail = true;
    const { service, store, letterOf } = setUp(async () => {
      if (fail) throw new Error('the table is throttling');
      return 'ok';
    });
    const letter = await letterOf();
    await expect(service.replay(letter.id, alice)).rejects.toThrow('the table is throttling');
    const after = await store.get(letter.id);
    expect(after).toMatchObject({ status: DeadLetterStatus.Open, actions: [] });
    expect(after?.replayClaim).toBeUndefined();
    fail = false;
    expect((await service.replay(letter.id, alice)).delivered).toBe(true);
  });

  it("no longer blocks a discard once a crashed replay's claim has passed its lease", async () => {
    const { service, store, clock, letterOf } = setUp(async () => 'never');
    const letter = await letterOf();
    const at = clock.now();
    await store.claimReplay(
      letter.id,
      {
        by: alice,
        claimId: 'crashed',
        leaseUntil: new Date(at.getTime() + DEAD_LETTER_REPLAY_LEASE_MS).toISOString(),
      },
      at.toISOString(),
    );
    await expect(service.discard(letter.id, bob, 'duplicate of evt-0')).rejects.toThrow(
      'being replayed by alice',
    );
    clock.advance(DEAD_LETTER_REPLAY_LEASE_MS);
    const discarded = await service.discard(letter.id, bob, 'duplicate of evt-0');
    expect(discarded).toMatchObject({
      status: DeadLetterStatus.Discarded,
      actions: [{ action: 'discard', note: 'duplicate of evt-0' }],
    });
    await expect(service.replay(letter.id, alice)).rejects.toThrow('is discarded, not open');
  });

  it('refuses to replay a letter that kept only the start of its event, writing nothing', async () => {
    const { service, store, clock } = setUp(async () => 'never');
    const letter = {
      ...deadLetterOf(
        { id: 'evt-big', 'detail-type': InboundEventType.PayoutRequested },
        new InvalidEventError('evt-big', []),
        clock.now(),
      ),
      event: '{"id":"evt-big",',
      eventTooLarge: { bytes: 500_000, eventId: 'evt-big' },
    };
    await store.send(letter);
    await expect(service.replay(letter.id, alice)).rejects.toThrow('kept only the start of its event');
    expect(await store.get(letter.id)).toMatchObject({ status: DeadLetterStatus.Open, actions: [] });
  });

  it('lists newest first by status, page by page, and refuses a cursor it did not issue', async () => {
    const { service, letterOf } = setUp(async () => 'ok');
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push((await letterOf({ n })).id);
    await service.replay(ids[0] as string, alice);
    const first = await service.list({ status: DeadLetterStatus.Open, limit: 1 });
    const second = await service.list({ status: DeadLetterStatus.Open, limit: 1, cursor: first.nextCursor });
    expect([...first.items, ...second.items].map((letter) => letter.id)).toEqual([ids[2], ids[1]]);
    expect(second.nextCursor).toBeUndefined();
    await expect(service.list({ limit: 1, cursor: 'made-up' })).rejects.toBeInstanceOf(InvalidCursorError);
  });
});
