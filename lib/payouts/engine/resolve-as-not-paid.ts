import type { Principal } from '../../controls/index.js';
import { ProviderLookupFailedError, ResolutionMismatchError } from '../errors.js';
import { providerAttemptOf } from '../gateway.js';
import { type Payout, PayoutStatus, type WatchedAttempt } from '../model.js';
import type { CapChange } from '../store/payout-store.js';
import { buildTransition, type SendingContext } from './context.js';
import { proposalConfirmedBy, proposeResolution } from './resolution-proposal.js';
import {
  type AttemptLook,
  isFailedLookup,
  isFound,
  lookFor,
  shownRecordsOf,
  watchCurrentAttempt,
} from './watch-attempts.js';

export interface NotPaidDecision {
  readonly note: string;
  /** Resolve as not paid although an attempt has a record: a second person must confirm with `force` too. */
  readonly force?: boolean;
}

/** What the provider and the payout itself show about whether any attempt paid. */
interface NotPaidEvidence {
  /** One look per attempt: the current one first, then every watched one. */
  readonly looks: readonly AttemptLook[];
  /** Why the payout cannot be taken as not paid on its evidence; empty when every attempt is proved unpaid. */
  readonly against: readonly string[];
  /** Whether the current attempt's look found no record at all (its cap reservation may go back). */
  readonly currentAbsent: boolean;
}

/**
 * Two people resolve a payout in `needs_review` or `unknown` as not paid, on the provider's records read now.
 *
 * Every attempt's marker is looked for at the provider (the reconciler's search, `lookFor`), on the proposal and
 * again on the confirmation. With no record for any attempt, no receipt and no record shown earlier, the first
 * call records the proposal and the same call by a different person (by stable identity) fails the payout
 * (`RESOLVED_NOT_PAID`), giving back the current attempt's cap reservation, the one attempt proved unpaid that
 * still holds one. Otherwise (a SUCCESS record, a receipt, a record shown earlier, or one not final or not
 * matching) the answer is a `ResolutionMismatchError` naming it, unless `force` is set: then the proposal records
 * what the provider shows, the confirmer must send `force` too, and no reservation is given back: it stands for
 * money that may have left (a record found only now was never counted again). Either way every attempt stays watched to the end of its window, remembering the records shown, so
 * a new record is reported. A payout paid twice is never resolved this way (`resolveReview`).
 *
 * @throws ResolutionMismatchError, ApprovalForbiddenError, ProviderLookupFailedError (nothing changed)
 */
export async function resolveAsNotPaid(
  ctx: SendingContext,
  payout: Payout,
  actor: Principal,
  decision: NotPaidDecision,
): Promise<Payout> {
  const evidence = await readEvidence(ctx, payout);
  const failedLookup = evidence.looks.find(isFailedLookup);
  if (failedLookup) {
    throw new ProviderLookupFailedError(
      `the provider's records of attempt ${failedLookup.attempt.number} could not be read (${failedLookup.outcome.code}); nothing was changed`,
    );
  }
  const against = evidence.against.join('; ');
  if (against !== '' && !decision.force) {
    throw new ResolutionMismatchError(
      `payout ${payout.id} cannot be resolved as not paid: ${against}. To resolve it as not paid anyway, send force: true with a note; a second person must confirm it.`,
    );
  }
  const asDecided = { outcome: 'failed', ...decision } as const;
  const proposal = proposalConfirmedBy(payout, actor, asDecided);
  const shows = against === '' ? `no record of attempts ${attemptsOf(evidence)}` : against;
  if (!proposal) {
    return proposeResolution(ctx, payout, actor, asDecided, {
      shows,
      ...(against !== '' && { mismatch: against }),
    });
  }
  const proved = against === '';
  const release = proved && evidence.currentAbsent ? heldReservation(payout) : undefined;
  const now = ctx.clock.now();
  return ctx.store.transition(
    buildTransition(
      payout,
      {
        to: PayoutStatus.Failed,
        actor,
        reason: `resolved as not paid${decision.force ? ' by force' : ''}: proposed by ${proposal.proposedBy.id} (${proposal.note}), confirmed by ${actor.id} (${decision.note}); the provider shows ${shows}${release ? '; the cap reservation is given back' : ''}`,
        changes: {
          failure: { code: 'RESOLVED_NOT_PAID', message: decision.note },
          resolutionProposal: undefined,
          ...(release && { capDay: undefined }),
          watchedAttempts: watchedAfter(ctx, payout, evidence, release !== undefined, now),
          watchEndedAt: undefined,
          // Due at once: the watch looks again from now on (an earlier watch may have ended).
          nextActionAt: undefined,
        },
        details: { outcome: 'failed', ...(decision.force && { forced: true }) },
        ...(release && { cap: release }),
      },
      now,
    ),
  );
}

/** Looks for every attempt's marker, and weighs what the payout itself records, against "not paid". */
async function readEvidence(ctx: SendingContext, payout: Payout): Promise<NotPaidEvidence> {
  const now = ctx.clock.now();
  const watched = payout.watchedAttempts ?? [];
  const current = providerAttemptOf(payout);
  const currentAttempt = watched.some((a) => a.number === current)
    ? []
    : [{ number: current, startedAt: payout.attempt?.startedAt ?? payout.createdAt }];
  // A watched attempt is looked for up to now, not only to the end of its window: a person decides on it now.
  const looks = await Promise.all(
    [...currentAttempt, ...watched.map((a) => ({ number: a.number, startedAt: a.startedAt }))].map(
      (attempt) => lookFor(ctx, payout, attempt, now),
    ),
  );
  const against: string[] = [];
  if (payout.receipt) {
    against.push(
      `it has a receipt, provider record ${payout.receipt.transactionId} (${payout.receipt.status})`,
    );
  }
  for (const look of looks) {
    if (isFound(look)) {
      against.push(
        `attempt ${look.attempt.number} has a SUCCESS record, ${look.outcome.record.transactionId} (amount ${look.outcome.record.amountKobo ?? '?'} kobo, to ${look.outcome.record.destination})`,
      );
    } else if (look.outcome.kind === 'ambiguous') {
      against.push(`attempt ${look.attempt.number}: ${look.outcome.detail}`);
    }
  }
  for (const a of watched) {
    if (a.shownRecords && !looks.some((look) => look.attempt.number === a.number && isFound(look))) {
      against.push(`attempt ${a.number} was shown records before (${a.shownRecords})`);
    }
  }
  const currentLook = looks.find((look) => look.attempt.number === current);
  return { looks, against, currentAbsent: currentLook?.outcome.kind === 'absent' };
}

function attemptsOf(evidence: NotPaidEvidence): string {
  return evidence.looks.map((look) => look.attempt.number).join(', ');
}

/**
 * The current attempt's cap reservation, while the payout holds one: a payout that failed before it was reopened
 * gave it back then (`failure` never leaves a payout, and nothing reserves again after it), and a late record that
 * reopened it was counted again because that money left.
 */
function heldReservation(payout: Payout): CapChange | undefined {
  if (payout.capDay === undefined || payout.failure !== undefined) return undefined;
  return { capKey: payout.capKey, day: payout.capDay, deltaKobo: -payout.amountKobo };
}

/**
 * Every attempt watched after the resolution, to the end of its window: the watched ones, and the current one
 * from now when it is not among them. Each remembers the records the resolution was decided on, so only a change
 * in them reopens the payout; the current attempt carries the day its reservation was given back on, if it was,
 * so a late record of it is counted again (and only then: a reservation kept still counts it).
 */
function watchedAfter(
  ctx: SendingContext,
  payout: Payout,
  evidence: NotPaidEvidence,
  released: boolean,
  now: Date,
): WatchedAttempt[] {
  const shown = new Map(evidence.looks.map((look) => [look.attempt.number, shownRecordsOf(look)]));
  const remember = (a: WatchedAttempt): WatchedAttempt => {
    const shownRecords = shown.get(a.number) || a.shownRecords;
    return shownRecords ? { ...a, shownRecords } : a;
  };
  const watched = (payout.watchedAttempts ?? []).map(remember);
  const current = providerAttemptOf(payout);
  if (watched.some((a) => a.number === current)) return watched;
  const { capDay: _held, ...currentWatch } = watchCurrentAttempt(ctx, payout, now);
  return [
    ...watched,
    remember({ ...currentWatch, ...(released && payout.capDay && { capDay: payout.capDay }) }),
  ];
}
