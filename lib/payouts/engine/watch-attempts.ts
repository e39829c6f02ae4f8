import { DeadlineExceededError, withinDeadline } from '../../shared/deadline.js';
import { ConcurrentModificationError } from '../../shared/errors.js';
import { type FindOutcome, providerAttemptOf } from '../gateway.js';
import { type Payout, PayoutStatus, systemPrincipal, type WatchedAttempt } from '../model.js';
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
 * `needs_review` because more than one attempt moved the money: "paid twice: attempts n and m", with every record.
 * The found attempts leave the watch (they are known now; a person decides on them), and the money they moved
 * is counted on the day cap of the attempt that had reserved it, because it did leave the wallet.
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
  const known = new Set(records.map((l) => l.attempt.number));
  // Money moved by an earlier attempt left the wallet although its reservation was released: count it again.
  const late = records.filter((l) => l.attempt.number !== providerAttemptOf(payout));
  const recountDay = late
    .map((look) => watched.find((a) => a.number === look.attempt.number)?.capDay)
    .find((day): day is string => day !== undefined);
  return {
    to: PayoutStatus.NeedsReview,
    actor: reconciler,
    reason: `paid twice: attempts ${numbers}${alreadyPaid ? ` (attempt ${alreadyPaid.attempt}: ${alreadyPaid.transactionId})` : ''}; ${described}`,
    changes: {
      nextActionAt: undefined,
      paidTwice: { attempts: sorted, transactionIds },
      // The found attempts are known now (a person decides on them); any others stay watched.
      watchedAttempts: watched.filter((a) => !known.has(a.number)),
    },
    details: { paidTwice: sorted.join(',') },
    ...(recountDay && {
      cap: { capKey: payout.capKey, day: recountDay, deltaKobo: payout.amountKobo * late.length },
    }),
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
  if (after?.status === PayoutStatus.NeedsReview) reportNeedsReview(ctx, after, spec.reason);
  return after ?? payout;
}

function decideWatch(
  ctx: EngineContext,
  payout: Payout,
  now: Date,
  watched: readonly WatchedAttempt[],
  looks: readonly AttemptLook[],
): TransitionSpec {
  const found = looks.filter(isFound);
  if (found.length > 0 && payout.status === PayoutStatus.Succeeded) {
    return paidTwiceSpec(payout, found, {
      attempt: payingAttempt(payout),
      transactionId: payout.receipt?.transactionId ?? '?',
    });
  }
  if (found.length > 1) return paidTwiceSpec(payout, found);
  const ambiguous = looks.filter(isAmbiguous);
  const [late] = found;
  if (late || ambiguous.length > 0) {
    const details = [
      ...found.map((look) => `attempt ${look.attempt.number} was paid after all: ${describeFound(look)}`),
      ...ambiguous.map((look) => `attempt ${look.attempt.number}: ${look.outcome.detail}`),
    ];
    const cap = late ? watched.find((a) => a.number === late.attempt.number)?.capDay : undefined;
    return {
      to: PayoutStatus.NeedsReview,
      actor: reconciler,
      reason: `recorded as ${payout.status}, but a record of an earlier attempt showed up: ${details.join(' | ')}`,
      changes: {
        nextActionAt: undefined,
        watchedAttempts: watched.filter((a) => !found.some((look) => look.attempt.number === a.number)),
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
      reason: `stopped watching attempts ${watched.map((a) => a.number).join(', ')}: no record within the watch window`,
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
      : `watching earlier attempts ${watched.map((a) => a.number).join(', ')}: no record yet`,
    changes: { nextActionAt: addMs(now, recheckWait(ctx, since)) },
  };
}

/** Logs and counts a payout handed to a person; a double payment has its own metric and alarm. */
export function reportNeedsReview(ctx: EngineContext, payout: Payout, reason: string): void {
  ctx.metrics.count('PayoutNeedsReview');
  if (payout.paidTwice) ctx.metrics.count('PayoutPaidTwice');
  ctx.logger.error(payout.paidTwice ? 'payout paid twice' : 'payout needs review', {
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
