import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Payout, PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { occurrenceKey } from '../../lib/recurrence/materialise.js';
import { OccurrenceState } from '../../lib/recurrence/model.js';
import { InvalidTransitionError, ValidationError } from '../../lib/shared/errors.js';
import { alice, bob, ledgerEntriesOf } from '../support/engine-harness.js';
import { dailyRule, type RecurrenceHarness, startRecurrenceHarness } from './support.js';

/**
 * Random create/pause/resume/skip/cancel sequences through the real recurrence sweep and the real engine
 * sweep (DynamoDB Local, the sandbox over HTTP, an injected clock), checked against an independent model:
 * each occurrence is paid exactly once if and only if it was not inside a pause, not skipped before its
 * time, and not after a cancel; every occurrence not paid before a cancel is recorded as skipped.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Days of occurrences per run (a daily rule at 10:00 Lagos, 09:00Z). */
const DAYS = 3;
const HORIZON = 10 * MINUTE;

type Action =
  | { readonly kind: 'pause' | 'resume' | 'cancel' }
  | { readonly kind: 'skip'; readonly day: number };
interface Command {
  /** Offset from the run's first occurrence, in ms; always 30 s off a whole minute, so never at a tick. */
  readonly offset: number;
  readonly action: Action;
}

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'pause' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'resume' as const }) },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0, max: DAYS - 1 }).map((day) => ({ kind: 'skip' as const, day })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'cancel' as const }) },
);

/** Mostly just before an occurrence (between its materialisation and its time), sometimes anywhere. */
const offsetArb: fc.Arbitrary<number> = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: DAYS - 1 }), fc.integer({ min: -8, max: 2 }))
    .map(([day, minutes]) => day * DAY + minutes * MINUTE + 30_000),
  fc.integer({ min: -80, max: (DAYS - 1) * 24 * 60 + 150 }).map((minutes) => minutes * MINUTE + 30_000),
);

/**
 * A short pause around one occurrence. Mostly it starts after the occurrence's payout was materialised (5 min
 * ahead) and ends before its time (the reported case: paused at 10:59, resumed at 11:01, due at 11:02) or after
 * it; sometimes it starts before the materialisation.
 */
const blipArb: fc.Arbitrary<Command[]> = fc
  .tuple(
    fc.integer({ min: 0, max: DAYS - 1 }),
    fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: -4, max: -1 }) },
      { weight: 1, arbitrary: fc.integer({ min: -9, max: -5 }) },
    ),
    fc.boolean(),
    fc.nat(3),
  )
  .map(([day, pausedAt, resumeBefore, spread]) => {
    // Whole minutes between the pause and the occurrence in which a resume still comes before it.
    const room = -pausedAt - 1;
    const resumedAt = resumeBefore && room > 0 ? pausedAt + 1 + (spread % room) : spread;
    return [
      { offset: day * DAY + pausedAt * MINUTE + 30_000, action: { kind: 'pause' } },
      { offset: day * DAY + resumedAt * MINUTE + 30_000, action: { kind: 'resume' } },
    ];
  });

const commandsArb = fc
  .array(
    fc.oneof(
      { weight: 1, arbitrary: fc.record({ offset: offsetArb, action: actionArb }).map((c) => [c]) },
      { weight: 1, arbitrary: blipArb },
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((groups) => groups.flat().sort((a, b) => a.offset - b.offset));

/** The model: what should happen, computed from the command list alone. */
function expectedPaid(commands: readonly Command[], occurrenceOffsets: readonly number[]) {
  let status: 'active' | 'paused' | 'cancelled' = 'active';
  let pausedAt = 0;
  const pauses: [number, number][] = [];
  const skipped = new Set<number>();
  let cancelledAt = Number.POSITIVE_INFINITY;
  /** Whether each pause, resume and cancel is accepted; null for a skip (refused or a no-op: either is fine). */
  const accepted: (boolean | null)[] = [];
  for (const { offset, action } of commands) {
    let ok: boolean | null = false;
    if (action.kind === 'pause' && status === 'active') {
      status = 'paused';
      pausedAt = offset;
      ok = true;
    } else if (action.kind === 'resume' && status === 'paused') {
      status = 'active';
      pauses.push([pausedAt, offset]);
      ok = true;
    } else if (action.kind === 'cancel' && status !== 'cancelled') {
      if (status === 'paused') pauses.push([pausedAt, Number.POSITIVE_INFINITY]);
      status = 'cancelled';
      cancelledAt = offset;
      ok = true;
    } else if (action.kind === 'skip' && status !== 'cancelled') {
      if (offset < (occurrenceOffsets[action.day] ?? 0)) skipped.add(action.day);
    }
    if (action.kind === 'skip') ok = null;
    accepted.push(ok);
  }
  if (status === 'paused') pauses.push([pausedAt, Number.POSITIVE_INFINITY]);
  const paid = occurrenceOffsets.map(
    (at, day) => !skipped.has(day) && at < cancelledAt && !pauses.some(([from, to]) => from < at && at < to),
  );
  return { paid, accepted, cancelledAt };
}

let h: RecurrenceHarness;
/** Each run gets days of its own, later than the last run's (the clock, shared with the sandbox, only moves on). */
let nextRunDay = Date.parse('2026-07-01T00:00:00.000Z');
beforeAll(async () => {
  h = await startRecurrenceHarness({ maxLatenessMs: 6 * 60 * MINUTE });
});
afterAll(async () => h.close());

describe('pause, resume, skip and cancel against a model', () => {
  it('pays each occurrence exactly once iff it was not inside a pause, not skipped and not after a cancel', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(commandsArb, async (commands) => {
        run++;
        const dayStart = nextRunDay;
        nextRunDay += (DAYS + 1) * DAY;
        const firstAt = dayStart + 9 * 60 * MINUTE;
        const occurrenceOffsets = Array.from({ length: DAYS }, (_, day) => day * DAY);
        const startDate = new Date(dayStart).toISOString().slice(0, 10);
        const dates = occurrenceOffsets.map((offset) =>
          new Date(firstAt + offset).toISOString().slice(0, 10),
        );
        const model = expectedPaid(commands, occurrenceOffsets);

        // The every-minute schedule where it matters: a recurrence sweep inside the horizon before each
        // occurrence (materialisation), both sweeps at its time (release and payment), and a recurrence sweep
        // after every command. Skipping the idle minutes in between keeps a run well under a second.
        const ticks = occurrenceOffsets.flatMap((offset) => [
          { offset: offset - HORIZON / 2, pays: false },
          { offset, pays: true },
        ]);
        let now = firstAt - 90 * MINUTE;
        const advanceTo = async (offset: number) => {
          for (const tick of ticks) {
            if (firstAt + tick.offset > now && tick.offset < offset) {
              now = firstAt + tick.offset;
              h.clock.set(new Date(now).toISOString());
              await h.recurrences.sweep();
              if (tick.pays) await payoutSweeper(h.engine).sweep();
            }
          }
          now = firstAt + offset;
          h.clock.set(new Date(now).toISOString());
        };

        h.clock.set(new Date(now).toISOString());
        const createdFrom = new Date(now).toISOString();
        const { recurrence } = await h.recurrences.create({
          request: dailyRule({ startDate, narration: `model run ${run}` }),
          idempotencyKey: `model-${dayStart}`,
          actor: alice,
        });
        const id = recurrence.id;
        const accepted: (boolean | null)[] = [];
        for (const { offset, action } of commands) {
          await advanceTo(offset);
          try {
            if (action.kind === 'skip')
              await h.recurrences.skip(id, dates[action.day] ?? '', bob, 'model skip');
            else if (action.kind === 'pause') await h.recurrences.pause(id, bob, 'model pause');
            else if (action.kind === 'resume') await h.recurrences.resume(id, bob);
            else await h.recurrences.cancel(id, bob, 'model cancel');
            accepted.push(action.kind === 'skip' ? null : true);
          } catch (error) {
            if (!(error instanceof InvalidTransitionError || error instanceof ValidationError)) throw error;
            accepted.push(action.kind === 'skip' ? null : false);
          }
          // A tick's materialisation right after the command (the every-minute schedule may run at any time).
          await h.recurrences.sweep();
        }
        expect(accepted).toEqual(model.accepted);
        await advanceTo((DAYS - 1) * DAY + 3 * 60 * MINUTE);
        if (model.cancelledAt === Number.POSITIVE_INFINITY)
          await h.recurrences.cancel(id, alice, 'end of run');

        const { items } = await h.listing.list({ from: createdFrom, limit: 100 });
        const ours = items.filter((payout) => payout.sourceRef === id);
        const view = await h.recurrences.view(id);
        dates.forEach((date, day) => {
          const payouts = ours.filter((payout: Payout) =>
            [1, 2, 3, 4, 5].some(
              (generation) => payout.idempotencyKey === occurrenceKey(id, date, generation),
            ),
          );
          const succeeded = payouts.filter((payout) => payout.status === PayoutStatus.Succeeded);
          const moved = payouts.flatMap((payout) => ledgerEntriesOf(h.sandbox, payout.id));
          const label = `${date} (day ${day}) after ${JSON.stringify(commands)}`;
          expect(succeeded.length, label).toBe(model.paid[day] ? 1 : 0);
          expect(moved.length, label).toBe(model.paid[day] ? 1 : 0);
          // Nothing is left that could still pay it.
          expect(
            payouts.filter((p) => p.status !== PayoutStatus.Succeeded && p.status !== PayoutStatus.Cancelled),
            label,
          ).toEqual([]);
          // Never silently dropped: an occurrence not paid before the cancel is recorded as skipped, with why.
          if (
            !model.paid[day] &&
            occurrenceOffsets[day] !== undefined &&
            occurrenceOffsets[day] < model.cancelledAt
          ) {
            const record = view.history.find((entry) => entry.localDate === date);
            expect(record?.state, label).toBe(OccurrenceState.Skipped);
            expect(record?.reason, label).toBeTruthy();
          }
        });
      }),
      { numRuns: 15 },
    );
    // 15 runs took 17-19 s alone here; the limit leaves room for a full parallel `npm test` on shared cores.
  }, 120_000);
});
