import type { Principal } from '../../controls/index.js';
import { ProviderLookupFailedError, ResolutionMismatchError } from '../errors.js';
import { providerAttemptOf, type RecordCheck } from '../gateway.js';
import {
  type AuditEvent,
  type Payout,
  PayoutStatus,
  type ProviderReceipt,
  unrecoveredDouble,
} from '../model.js';
import { buildTransition, type EngineContext, type SendingContext } from './context.js';
import { proposalConfirmedBy, proposeResolution } from './resolution-proposal.js';
import { watchOnResolution } from './watch-attempts.js';

export interface PaidDecision {
  readonly transactionId: string;
  readonly note: string;
  /** Resolve as paid although the record does not prove it (see below). */
  readonly force?: boolean;
}

/**
 * A person resolves a payout in `needs_review` or `unknown` as paid, naming the provider transaction that proves
 * it; like every resolution it takes two people (`proposalConfirmedBy`).
 *
 * The record is read from the provider (`PayoutGateway.check`) on the proposal and again on the confirmation, and
 * must exist, be a SUCCESS debit, end with one of the payout's attempt markers, and match amount and destination;
 * the first call records the proposal (the payout keeps its status), the same call by a different person (another
 * identity, a person) succeeds the payout with the record's receipt (its charges included). A record that does not
 * prove it is a `ResolutionMismatchError` naming what disagrees, unless `force` is set: then the proposal records
 * the mismatch, and the confirmer must send `force` too.
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
  const asDecided = { outcome: 'succeeded', ...decision } as const;
  if (check.kind === 'matches') {
    const verified = `record ${check.record.transactionId} verified (attempt ${check.attemptNumber})`;
    const proposal = proposalConfirmedBy(payout, actor, asDecided);
    if (!proposal) return proposeResolution(ctx, payout, actor, asDecided, { shows: verified });
    return markPaid(ctx, payout, actor, check.receipt, check.attemptNumber, {
      reason: `resolved as paid: proposed by ${proposal.proposedBy.id} (${proposal.note}), confirmed by ${actor.id} (${decision.note}), provider ${verified}`,
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
  const proposal = proposalConfirmedBy(payout, actor, asDecided);
  if (!proposal) {
    return proposeResolution(ctx, payout, actor, asDecided, { shows: mismatch, mismatch });
  }
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

export interface RecoveredDecision {
  readonly recoveryReference: string;
  readonly note: string;
  /** One of the records paid twice, kept as the payout's receipt; by default its receipt, or its first attempt's. */
  readonly transactionId?: string;
}

/**
 * Two people close a payout paid twice (`paidTwice`, no recovery covering it) as `paid_twice_recovered`: the
 * payout ends `succeeded` (money left, and the cap keeps counting every payment) with `recovery` naming how the
 * extra money was recovered. The record kept as the receipt is read from the provider and must be one of those
 * paid twice. Every attempt stays watched to the end of its window: a further payment is reported again.
 *
 * @throws ResolutionMismatchError, ApprovalForbiddenError, ProviderLookupFailedError
 */
export async function resolveAsRecovered(
  ctx: SendingContext,
  payout: Payout,
  actor: Principal,
  decision: RecoveredDecision,
): Promise<Payout> {
  const { paidTwice } = payout;
  if (!paidTwice || !unrecoveredDouble(payout)) {
    throw new ResolutionMismatchError(
      `payout ${payout.id} has no double payment left to recover: resolve it as succeeded or failed`,
    );
  }
  const doubles = `attempts ${paidTwice.attempts.join(', ')}: ${paidTwice.transactionIds.join(', ')}`;
  if (decision.transactionId !== undefined && !paidTwice.transactionIds.includes(decision.transactionId)) {
    throw new ResolutionMismatchError(
      `transactionId: ${decision.transactionId} is not one of the records that paid payout ${payout.id} twice (${doubles})`,
    );
  }
  const kept = await keptPayment(ctx, payout, paidTwice, decision.transactionId);
  const asDecided = { outcome: 'paid_twice_recovered', ...decision } as const;
  const proposal = proposalConfirmedBy(payout, actor, asDecided);
  if (!proposal)
    return proposeResolution(ctx, payout, actor, asDecided, { shows: `paid twice (${doubles})` });
  return markPaid(ctx, payout, actor, kept.receipt, kept.attemptNumber, {
    reason: `resolved as paid twice and recovered (${decision.recoveryReference}): proposed by ${proposal.proposedBy.id} (${proposal.note}), confirmed by ${actor.id} (${decision.note}); paid by ${doubles}, the payment kept is ${kept.receipt.transactionId}`,
    changes: {
      recovery: {
        recoveryReference: decision.recoveryReference,
        transactionIds: paidTwice.transactionIds,
        proposedBy: proposal.proposedBy,
        confirmedBy: actor,
        at: ctx.clock.now().toISOString(),
      },
    },
    keepWatching: true,
    details: { outcome: 'paid_twice_recovered', recoveryReference: decision.recoveryReference },
  });
}

/**
 * The payment a recovered double keeps as the payout's receipt, read from the provider: the one named; else the
 * payout's own receipt, kept as it is; else the record of its earliest attempt among those paid twice.
 */
async function keptPayment(
  ctx: SendingContext,
  payout: Payout,
  paidTwice: NonNullable<Payout['paidTwice']>,
  named: string | undefined,
): Promise<{ receipt: ProviderReceipt; attemptNumber?: number }> {
  if (payout.receipt && (named === undefined || named === payout.receipt.transactionId)) {
    return { receipt: payout.receipt };
  }
  const candidates = named === undefined ? paidTwice.transactionIds : [named];
  const checks = await Promise.all(candidates.map((id) => checkRecord(ctx, payout, id)));
  const failed = checks.find((check) => check.kind === 'lookup_failed');
  if (failed?.kind === 'lookup_failed') {
    throw new ProviderLookupFailedError(
      `the provider could not be asked about the records paid twice (${failed.code}); nothing was changed`,
    );
  }
  const [earliest] = checks
    .flatMap((check) => (check.kind === 'matches' ? [check] : []))
    .sort((a, b) => a.attemptNumber - b.attemptNumber);
  if (!earliest) {
    const why = checks.map((check) => ('reason' in check ? check.reason : check.kind)).join('; ');
    throw new ResolutionMismatchError(
      `transactionId: ${candidates.join(', ')} is not the payout's payment at the provider (${why}); name another of the records paid twice`,
    );
  }
  return { receipt: earliest.receipt, attemptNumber: earliest.attemptNumber };
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
  text: {
    reason: string;
    changes?: Pick<Payout, 'recovery'>;
    /** Keep the named attempt watched too (its record was shown to people and is remembered as such). */
    keepWatching?: boolean;
    details?: AuditEvent['details'];
  },
): Promise<Payout> {
  const stillWatched = (payout.watchedAttempts ?? []).filter(
    (a) => text.keepWatching || a.number !== attemptNumber,
  );
  return write(ctx, payout, {
    to: PayoutStatus.Succeeded,
    actor,
    reason: text.reason,
    changes: {
      receipt,
      resolutionProposal: undefined,
      ...text.changes,
      ...paidByAttemptOf(payout, attemptNumber),
      ...watchOnResolution(ctx, payout, ctx.clock.now(), stillWatched, attemptNumber),
    },
    details: { transactionId: receipt.transactionId, ...text.details },
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
