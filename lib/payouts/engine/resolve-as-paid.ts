import { ProviderLookupFailedError, ResolutionMismatchError } from '../errors.js';
import { assertMayApprove } from '../gate.js';
import { providerAttemptOf, type RecordCheck } from '../gateway.js';
import { type Payout, PayoutStatus, type Principal, type ProviderReceipt } from '../model.js';
import { buildTransition, type EngineContext, type SendingContext } from './context.js';
import { watchOnResolution } from './watch-attempts.js';

export interface PaidDecision {
  readonly transactionId: string;
  readonly note: string;
  /** Resolve as paid although the record does not prove it; needs a second person (see below). */
  readonly force?: boolean;
}

/**
 * A person resolves a payout in `needs_review` as paid, naming the provider transaction that proves it.
 *
 * The record is read from the provider (`PayoutGateway.check`) and must exist, be a SUCCESS debit, end with one
 * of the payout's attempt markers, and match amount and destination; then the payout succeeds with the record's
 * receipt (its charges included). Otherwise the answer is a `ResolutionMismatchError` naming what disagrees,
 * unless `force` is set: the first forced call records a proposal (the payout stays in `needs_review`), and the
 * same forced call by a different person (`assertMayApprove`: another identity, a person) applies it.
 *
 * @throws ResolutionMismatchError, ApprovalForbiddenError, ProviderLookupFailedError
 */
export async function resolveAsPaid(
  ctx: SendingContext,
  payout: Payout,
  actor: Principal,
  decision: PaidDecision,
): Promise<Payout> {
  const check = await checkRecord(ctx, payout, decision.transactionId);
  if (check.kind === 'lookup_failed') {
    throw new ProviderLookupFailedError(
      `the provider could not be asked about transaction ${decision.transactionId} (${check.code}); nothing was changed`,
    );
  }
  if (check.kind === 'matches') {
    return markPaid(ctx, payout, actor, check.receipt, check.attemptNumber, {
      reason: `resolved as paid by ${actor.id}, provider record ${check.record.transactionId} verified (attempt ${check.attemptNumber}): ${decision.note}`,
    });
  }
  const mismatch =
    check.kind === 'not_found'
      ? check.reason
      : `record ${check.record.transactionId} (amount ${check.record.amountKobo ?? '?'} kobo, to ${check.record.destination}, at ${check.record.createdAt}): ${check.reason}`;
  if (!decision.force) {
    throw new ResolutionMismatchError(
      `transactionId: ${mismatch}. To resolve as paid anyway, send force: true with a note; a second person must confirm it.`,
    );
  }
  const proposal = payout.resolutionProposal;
  if (!proposal || proposal.transactionId !== decision.transactionId) {
    return propose(ctx, payout, actor, decision, mismatch);
  }
  assertMayApprove(proposal.proposedBy, actor, `the forced resolution of payout ${payout.id}`);
  const receipt: ProviderReceipt =
    check.kind === 'mismatch'
      ? check.receipt
      : { transactionId: decision.transactionId, status: 'UNVERIFIED', chargesKobo: 0 };
  // A record that disagrees may still carry one of the payout's markers: that attempt is the one named as paying.
  const namedAttempt = check.kind === 'mismatch' ? check.attemptNumber : undefined;
  return markPaid(ctx, payout, actor, receipt, namedAttempt, {
    reason: `resolved as paid by force: proposed by ${proposal.proposedBy.id} (${proposal.note}), confirmed by ${actor.id} (${decision.note}), although ${mismatch}`,
  });
}

async function checkRecord(ctx: SendingContext, payout: Payout, transactionId: string): Promise<RecordCheck> {
  if (!ctx.gateway.check) {
    return { kind: 'not_found', reason: 'this deployment cannot read provider records to verify it' };
  }
  try {
    return await ctx.gateway.check(payout, transactionId);
  } catch (error) {
    return {
      kind: 'lookup_failed',
      code: 'GATEWAY_ERROR',
      message: error instanceof Error ? error.message : 'failed',
    };
  }
}

/** The first forced call: recorded on the payout (and audited), applied only when another person confirms it. */
async function propose(
  ctx: EngineContext,
  payout: Payout,
  actor: Principal,
  decision: PaidDecision,
  mismatch: string,
): Promise<Payout> {
  const now = ctx.clock.now();
  return write(ctx, payout, {
    to: PayoutStatus.NeedsReview,
    actor,
    reason: `${actor.id} proposes to resolve as paid by force with transaction ${decision.transactionId} (${decision.note}), although ${mismatch}; a second person must confirm`,
    changes: {
      resolutionProposal: {
        transactionId: decision.transactionId,
        note: decision.note,
        proposedBy: actor,
        proposedAt: now.toISOString(),
        mismatch,
      },
    },
    details: { transactionId: decision.transactionId, forced: true },
  });
}

/**
 * Succeeds the payout with `receipt`, the record of attempt `attemptNumber` when its marker says which. The attempt
 * that paid is no longer watched for; the others still are, for the rest of their window, and so is the attempt in
 * flight when nothing decided it (`watchOnResolution`): if it paid too, the watch reports the double.
 */
function markPaid(
  ctx: EngineContext,
  payout: Payout,
  actor: Principal,
  receipt: ProviderReceipt,
  attemptNumber: number | undefined,
  text: { reason: string },
): Promise<Payout> {
  const stillWatched = (payout.watchedAttempts ?? []).filter((a) => a.number !== attemptNumber);
  return write(ctx, payout, {
    to: PayoutStatus.Succeeded,
    actor,
    reason: text.reason,
    changes: {
      receipt,
      resolutionProposal: undefined,
      ...paidByAttemptOf(payout, attemptNumber),
      ...watchOnResolution(ctx, payout, ctx.clock.now(), stillWatched, attemptNumber),
    },
    details: { transactionId: receipt.transactionId },
  });
}

/**
 * `paidByAttempt` once the named record's attempt is known: set for an earlier attempt, cleared for the current
 * one (a payout that had succeeded through an earlier attempt may be resolved with the current attempt's record),
 * so the watch names the attempt that paid. Unchanged when the record carries no marker of the payout.
 */
function paidByAttemptOf(payout: Payout, attemptNumber: number | undefined): Pick<Payout, 'paidByAttempt'> {
  if (attemptNumber === undefined) return {};
  return { paidByAttempt: attemptNumber !== providerAttemptOf(payout) ? attemptNumber : undefined };
}

/** A change made meanwhile (another resolution) surfaces as ConcurrentModificationError: a 409, nothing lost. */
function write(
  ctx: EngineContext,
  payout: Payout,
  spec: Parameters<typeof buildTransition>[1],
): Promise<Payout> {
  return ctx.store.transition(buildTransition(payout, spec, ctx.clock.now()));
}
