import { systemPrincipal } from '../../controls/index.js';
import { DeadlineExceededError, withinDeadline } from '../../shared/deadline.js';
import { ConcurrentModificationError } from '../../shared/errors.js';
import { type FindOutcome, providerAttemptOf } from '../gateway.js';
import { newlyPaidTwice, type Payout, PayoutStatus, type WatchedAttempt } from '../model.js';
import type { CapChange } from '../store/payout-store.js';
import {
  addMs,
  buildTransition,
  type EngineContext,
  type SendingContext,
  type TransitionSpec,
} from './context.js';

const reconciler = systemPrincipal('reconciler');
const MAX_RECHECK_INTERVAL_MS = 60 * 60_000;
/** Provider records may carry a clock a little behind (or ahead of) ours. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * How long one look-up (every page of its listings, the client's retries included) may take: past it the look is
 * a failed look-up, the payout is looked at again later, and a reconciler pass costs a known time per payout
 * (test/infra/handler-limits.test.ts). A window too busy to list in time is one the reconciler cannot prove
 * absent either: after `reconcileGiveUpMs` it goes to a person, as a provider that cannot be asked does.
 */
export const LOOKUP_DEADLINE_MS = 15_000;

/** One attempt and what looking for its marker found. */
export interface AttemptLook {
  readonly attempt: { readonly number: number; readonly startedAt: string; readonly watchUntil?: string };
  readonly outcome: FindOutcome;
}

type LookOf<K extends FindOutcome['kind']> = AttemptLook & {
  readonly outcome: Extract<FindOutcome, { kind: K }>;
};
export type FoundLook = LookOf<'found'>;
export const isFound = (look: AttemptLook): look is FoundLook => look.outcome.kind === 'found';
export const isAmbiguous = (look: AttemptLook): look is LookOf<'ambiguous'> =>
  look.outcome.kind === 'ambiguous';
export const isFailedLookup = (look: AttemptLook): look is LookOf<'lookup_failed'> =>
  look.outcome.kind === 'lookup_failed';

/**
 * The records a look found, as a watched attempt remembers them once a person was shown them
 * (`WatchedAttempt.shownRecords`): `transactionId=status`, sorted; empty when the attempt is absent.
 */
export function shownRecordsOf(look: AttemptLook): string {
  if (isAmbiguous(look)) {
    return look.outcome.candidates
      .map((candidate) => `${candidate.transactionId}=${candidate.status}`)
      .sort()
      .join(',');
  }
  if (isFound(look)) return `${look.outcome.record.transactionId}=${look.outcome.record.status}`;
  return '';
}

/** Marks the found attempts among `watched` as shown: they stay watched, and only a change in them is news. */
function rememberFound(watched: readonly WatchedAttempt[], found: readonly FoundLook[]): WatchedAttempt[] {
  const shown = new Map(found.map((look) => [look.attempt.number, shownRecordsOf(look)]));
  return watched.map((a) => {
    const shownRecords = shown.get(a.number);
    return shownRecords === undefined ? a : { ...a, shownRecords };
  });
}

/** One found record as a review reason names it. */
function describeFound(look: FoundLook): string {
  const { record } = look.outcome;
  return `${record.transactionId} (amount ${record.amountKobo ?? '?'} kobo, to ${record.destination}, at ${record.createdAt})`;
}

/**
 * Looks for one attempt's marker in the provider's DEBIT records created from just before the attempt to now (a
 * watched attempt: to the end of its watch window). A gateway that throws is a failed look-up, never an absence.
 */
export async function lookFor(
  ctx: SendingContext,
  payout: Payout,
  attempt: AttemptLook['attempt'],
  now: Date,
  deadlineMs = LOOKUP_DEADLINE_MS,
): Promise<AttemptLook> {
  const until =
    attempt.watchUntil && attempt.watchUntil < now.toISOString() ? new Date(attempt.watchUntil) : now;
  try {
    // Raced as well as handed over (withinDeadline): the gateway's credentials read is not abortable, and a look
    // must end.
    const outcome = await withinDeadline(deadlineMs, (signal) =>
      ctx.gateway.find(payout, {
        from: addMs(new Date(attempt.startedAt), -CLOCK_SKEW_MS),
        to: addMs(until, CLOCK_SKEW_MS),
        attemptNumber: attempt.number,
        signal,
      }),
    );
    return { attempt, outcome };
  } catch (error) {
    if (error instanceof DeadlineExceededError) {
      return {
        attempt,
        outcome: {
          kind: 'lookup_failed',
          code: 'LOOKUP_DEADLINE',
          message: `the provider's records could not be read within ${deadlineMs} ms`,
        },
      };
    }
    return {
      attempt,
      outcome: {
        kind: 'lookup_failed',
        code: 'GATEWAY_ERROR',
        message: error instanceof Error ? error.message : 'failed',
      },
    };
  }
}

/** The wait before the next look, growing with the time since the attempt, from the interval up to an hour. */
export function recheckWait(ctx: EngineContext, elapsed: number): number {
  return Math.min(MAX_RECHECK_INTERVAL_MS, Math.max(ctx.config.reconcileIntervalMs, elapsed / 2));
}

/** The attempt that paid a decided payout: the current one, unless an earlier one's record was found later. */
function payingAttempt(payout: Payout): number {
  return payout.paidByAttempt ?? providerAttemptOf(payout);
}

/**
 * The payout's current attempt as a watched attempt, from `now` until the watch window ends: once the reconciler
 * proved it absent, or once a person resolved the payout while it was never found nor proved absent
 * (`watchOnResolution`). `provedAbsentAt` is when its watch began; `capDay` the day its claim had reserved.
 */
export function watchCurrentAttempt(ctx: EngineContext, payout: Payout, now: Date): WatchedAttempt {
  return {
    number: providerAttemptOf(payout),
    startedAt: payout.attempt?.startedAt ?? payout.createdAt,
    ...(payout.capDay && { capDay: payout.capDay }),
    provedAbsentAt: now.toISOString(),
    watchUntil: addMs(now, ctx.config.watchWindowMs),
  };
}

/**
 * Whether the payout came to a person with its current attempt undecided: never decided (no receipt, no failure:
 * neither ever leaves a payout), its claim's reservation still held (`capDay`; a proved absence gives it back and
 * clears it), and its record not among those reported as paid twice. That is a payout the reconciler handed over
 * from `unknown` because the provider could not be asked, or its records could not be read as one payout (or a
 * cancelled one whose last claim was given back unsent: watching an attempt that never left finds nothing). Every
 * other current attempt of a payout in `needs_review` is accounted for: it paid (the receipt), was refused, was
 * proved absent and is watched, or its late record is what reopened the payout.
 */
function currentAttemptUndecided(payout: Payout): boolean {
  const current = providerAttemptOf(payout);
  return (
    payout.receipt === undefined &&
    payout.failure === undefined &&
    payout.capDay !== undefined &&
    !(payout.paidTwice?.attempts.includes(current) ?? false)
  );
}

/**
 * The watch after a person resolves a payout in `needs_review` (as paid, verified or forced, or as failed):
 * `stillWatched` stay watched, and so does the current attempt when it is undecided (`currentAttemptUndecided`)
 * and the resolution does not name it as the one that paid (`namedAttempt`). Without that, a decided payout with
 * nothing watched is in no work queue, and a late record of that attempt, a second payment or the payment of a
 * payout resolved as failed, would never be seen. A watch started here is due at once, even after an earlier
 * watch ended (the ended attempts are then looked at again with it).
 */
export function watchOnResolution(
  ctx: EngineContext,
  payout: Payout,
  now: Date,
  stillWatched: readonly WatchedAttempt[],
  namedAttempt?: number,
): Pick<Payout, 'watchedAttempts' | 'watchEndedAt' | 'nextActionAt'> {
  const watchCurrent = namedAttempt !== providerAttemptOf(payout) && currentAttemptUndecided(payout);
  if (!watchCurrent) return payout.watchedAttempts ? { watchedAttempts: stillWatched } : {};
  return {
    watchedAttempts: [...stillWatched, watchCurrentAttempt(ctx, payout, now)],
    watchEndedAt: undefined,
    nextActionAt: undefined,
  };
}

/**
 * The attempt among those found paid whose money the payout's held cap reservation already counts, if any. Only a
 * payout in flight (`submitting`, `unknown`) holds its current attempt's reservation unspent; a `succeeded` one's
 * counts the payment it was decided on, which is never among the watched attempts looked for, and a `failed` or
 * `cancelled` one holds none (given back when the attempt was proved absent, refused or resolved as not paid).
 */
function attemptCoveredByReservation(payout: Payout): number | undefined {
  const inFlight = payout.status === PayoutStatus.Unknown || payout.status === PayoutStatus.Submitting;
  return inFlight && payout.capDay ? providerAttemptOf(payout) : undefined;
}

/** The Lagos day whose cap an attempt had reserved: as watched, or the payout's own for its current attempt. */
function capDayOfAttempt(payout: Payout, attempt: number): string | undefined {
  const watched = payout.watchedAttempts?.find((a) => a.number === attempt);
  return watched?.capDay ?? (attempt === providerAttemptOf(payout) ? payout.capDay : undefined);
}

/**
 * The cap change that counts again the money of paid attempts no held reservation counts, because it did leave the
 * wallet. A transition carries one cap change, so when the attempts had reserved different days the sum goes on
 * the latest of them (the one that still limits claims); none when no day is known.
 */
function recountOfPaidAttempts(payout: Payout, records: readonly FoundLook[]): CapChange | undefined {
  const covered = attemptCoveredByReservation(payout);
  const recounted = records.filter((look) => look.attempt.number !== covered);
  const days = recounted
    .map((look) => capDayOfAttempt(payout, look.attempt.number))
    .filter((day): day is string => day !== undefined);
  const latest = days.reduce<string | undefined>((last, day) => (last && last > day ? last : day), undefined);
  if (!latest) return undefined;
  return { capKey: payout.capKey, day: latest, deltaKobo: payout.amountKobo * recounted.length };
}

/**
 * `needs_review` because more than one attempt moved the money: "paid twice: attempts n and m", with every record.
 * The found attempts leave the watch (they are known now; a person decides on them), and the money of every one
 * no held reservation counts is counted again (`recountOfPaidAttempts`), because it did leave the wallet.
 */
export function paidTwiceSpec(
  payout: Payout,
  records: readonly FoundLook[],
  alreadyPaid?: { attempt: number; transactionId: string },
): TransitionSpec {
  const attempts = [...(alreadyPaid ? [alreadyPaid.attempt] : []), ...records.map((l) => l.attempt.number)];
  const transactionIds = [
    ...(alreadyPaid ? [alreadyPaid.transactionId] : []),
    ...records.map((l) => l.outcome.receipt.transactionId),
  ];
  const sorted = [...attempts].sort((a, b) => a - b);
  const numbers = `${sorted.slice(0, -1).join(', ')} and ${sorted.at(-1)}`;
  const described = records
    .map((look) => `attempt ${look.attempt.number}: ${describeFound(look)}`)
    .join('; ');
  const watched = payout.watchedAttempts ?? [];
  const recount = recountOfPaidAttempts(payout, records);
  return {
    to: PayoutStatus.NeedsReview,
    actor: reconciler,
    reason: `paid twice: attempts ${numbers}${alreadyPaid ? ` (attempt ${alreadyPaid.attempt}: ${alreadyPaid.transactionId})` : ''}; ${described}`,
    changes: {
      nextActionAt: undefined,
      paidTwice: { attempts: sorted, transactionIds },
      // Every attempt stays watched to the end of its window (a third payment under a marker is news); a found
      // one remembers its record, which a person decides on, so seeing it again reopens nothing.
      watchedAttempts: rememberFound(watched, records),
    },
    details: { paidTwice: sorted.join(',') },
    ...(recount && { cap: recount }),
  };
}

/**
 * Looks again for the earlier attempts of a decided payout (succeeded, failed or cancelled), until every watch
 * window is over. A late record makes the payout `needs_review`: "paid twice" when it had succeeded, "paid after
 * all" when it was recorded as not paid. Returns the payout as it is afterwards.
 */
export async function watchPayout(
  ctx: SendingContext,
  payout: Payout,
  lookupDeadlineMs = LOOKUP_DEADLINE_MS,
): Promise<Payout> {
  const watched = payout.watchedAttempts ?? [];
  if (watched.length === 0 || payout.watchEndedAt) return payout;
  const now = ctx.clock.now();
  const looks = await Promise.all(
    watched.map((attempt) => lookFor(ctx, payout, attempt, now, lookupDeadlineMs)),
  );
  const spec = decideWatch(ctx, payout, now, watched, looks);
  const after = await tryTransition(ctx, payout, spec);
  if (after?.status === PayoutStatus.NeedsReview) reportNeedsReview(ctx, payout, after, spec.reason);
  return after ?? payout;
}

/**
 * A succeeded payout whose further records were found paid outside the watch (the daily statement,
 * lib/statements): `needs_review` as paid twice, exactly as the watch decides it (`decideWatch`: `paidTwiceSpec`
 * with the payment it was decided on, the reconciler's transition, the same metric and log). Answers the payout as
 * it is afterwards, or undefined when another writer changed it first (the payout is left to them).
 */
export async function markPaidTwice(
  ctx: EngineContext,
  payout: Payout,
  found: readonly FoundLook[],
): Promise<Payout | undefined> {
  const spec = paidTwiceSpec(payout, found, {
    attempt: payingAttempt(payout),
    transactionId: payout.receipt?.transactionId ?? '?',
  });
  const after = await tryTransition(ctx, payout, spec);
  if (after?.status === PayoutStatus.NeedsReview) reportNeedsReview(ctx, payout, after, spec.reason);
  return after;
}

/** The records a person was shown for a watched attempt, if any. */
function shownBefore(watched: readonly WatchedAttempt[], look: AttemptLook): string | undefined {
  return watched.find((a) => a.number === look.attempt.number)?.shownRecords;
}

function decideWatch(
  ctx: EngineContext,
  payout: Payout,
  now: Date,
  watched: readonly WatchedAttempt[],
  looks: readonly AttemptLook[],
): TransitionSpec {
  // A record a person was already shown for the attempt (found paid twice or late, then resolved) is no news.
  const found = looks.filter(isFound).filter((look) => shownRecordsOf(look) !== shownBefore(watched, look));
  if (found.length > 0 && payout.status === PayoutStatus.Succeeded) {
    return paidTwiceSpec(payout, found, {
      attempt: payingAttempt(payout),
      transactionId: payout.receipt?.transactionId ?? '?',
    });
  }
  if (found.length > 1) return paidTwiceSpec(payout, found);
  // Records a person was already shown for an attempt, unchanged, do not reopen the payout again: left to reopen
  // it, they would after every resolution, for ever. The attempt stays watched all the same, so a record not final
  // that turns paid is still found (and a change in its records is shown again).
  const newlyAmbiguous = looks
    .filter(isAmbiguous)
    .filter((look) => shownRecordsOf(look) !== shownBefore(watched, look));
  const [late] = found;
  if (late || newlyAmbiguous.length > 0) {
    const details = [
      ...found.map((look) => `attempt ${look.attempt.number} was paid after all: ${describeFound(look)}`),
      ...newlyAmbiguous.map((look) => `attempt ${look.attempt.number}: ${look.outcome.detail}`),
    ];
    const cap = late ? watched.find((a) => a.number === late.attempt.number)?.capDay : undefined;
    const shownNow = new Map(newlyAmbiguous.map((look) => [look.attempt.number, shownRecordsOf(look)]));
    return {
      to: PayoutStatus.NeedsReview,
      actor: reconciler,
      reason: `recorded as ${payout.status}, but a record of an earlier attempt showed up: ${details.join(' | ')}`,
      changes: {
        nextActionAt: undefined,
        // Every attempt stays watched, remembering the records shown now: only a change in them is news.
        watchedAttempts: rememberFound(watched, found).map((a) => {
          const shownRecords = shownNow.get(a.number);
          return shownRecords === undefined ? a : { ...a, shownRecords };
        }),
      },
      ...(cap && { cap: { capKey: payout.capKey, day: cap, deltaKobo: payout.amountKobo } }),
    };
  }
  const lastWatchEnds = watched.reduce((latest, a) => (a.watchUntil > latest ? a.watchUntil : latest), '');
  const failed = looks.find(isFailedLookup);
  if (!failed && now.toISOString() >= lastWatchEnds) {
    return {
      to: payout.status,
      actor: reconciler,
      reason: `stopped watching attempts ${watched.map((a) => a.number).join(', ')}: no record within the watch window${looks.some((look) => isAmbiguous(look) || isFound(look)) ? ' but those already shown to a person' : ''}`,
      changes: { nextActionAt: undefined, watchEndedAt: now.toISOString() },
    };
  }
  if (
    failed?.outcome.kind === 'lookup_failed' &&
    now.getTime() >= Date.parse(lastWatchEnds) + ctx.config.reconcileGiveUpMs
  ) {
    // Nobody could confirm the earlier attempts never paid: a person must look, rather than the watch ending as
    // if nothing had shown up.
    return {
      to: PayoutStatus.NeedsReview,
      actor: reconciler,
      reason: `recorded as ${payout.status}, but whether attempts ${watched.map((a) => a.number).join(', ')} ever paid could not be checked: the provider look-up kept failing (${failed.outcome.message}) until ${addMs(new Date(lastWatchEnds), ctx.config.reconcileGiveUpMs)}`,
      changes: { nextActionAt: undefined, watchEndedAt: now.toISOString() },
    };
  }
  const since = Math.min(...watched.map((a) => now.getTime() - new Date(a.provedAbsentAt).getTime()));
  return {
    to: payout.status,
    actor: reconciler,
    reason: failed
      ? `watching earlier attempts: look-up failed (${failed.outcome.code}); will look again`
      : `watching earlier attempts ${watched.map((a) => a.number).join(', ')}: ${looks.some((look) => isAmbiguous(look) || isFound(look)) ? 'no record but those already shown to a person, unchanged' : 'no record yet'}`,
    changes: { nextActionAt: addMs(now, recheckWait(ctx, since)) },
  };
}

/** Logs and counts a payout handed to a person; a double payment found now has its own metric and alarm. */
export function reportNeedsReview(ctx: EngineContext, before: Payout, payout: Payout, reason: string): void {
  ctx.metrics.count('PayoutNeedsReview');
  const paidTwice = newlyPaidTwice(before, payout);
  if (paidTwice) ctx.metrics.count('PayoutPaidTwice');
  ctx.logger.error(paidTwice ? 'payout paid twice' : 'payout needs review', {
    payoutId: payout.id,
    idempotencyKey: payout.idempotencyKey,
    reason,
  });
}

/** A transition by the reconciler; losing a race to another writer is not an error (it decided first). */
export async function tryTransition(
  ctx: EngineContext,
  payout: Payout,
  spec: TransitionSpec,
): Promise<Payout | undefined> {
  try {
    return await ctx.store.transition(buildTransition(payout, spec, ctx.clock.now()));
  } catch (error) {
    if (error instanceof ConcurrentModificationError) return undefined;
    throw error;
  }
}
