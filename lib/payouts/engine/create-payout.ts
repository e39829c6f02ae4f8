import type { Principal } from '../../controls/index.js';
import { assertMayApprove, type Judgement, judge } from '../../controls/index.js';
import { toWholeNaira } from '../../money.js';
import { IdempotencyConflictError, ValidationError } from '../../shared/errors.js';
import { fingerprint, ulid } from '../../shared/ids.js';
import { describePayout, toInstruction } from '../instruction.js';
import {
  type AuditEvent,
  type Payout,
  type PayoutInstruction,
  type PayoutOrigin,
  PayoutStatus,
} from '../model.js';
import type { CreatePayoutRequest } from '../schemas.js';
import type { CreateOutcome, CreationCompanion } from '../store/payout-store.js';
import { addMs, type EngineContext } from './context.js';

export interface CreatePayoutCommand {
  readonly request: CreatePayoutRequest;
  readonly idempotencyKey: string;
  readonly origin: PayoutOrigin;
  readonly actor: Principal;
  /** The recurrence occurrence or settlement this payout derives from. */
  readonly sourceRef?: string;
  /** Stored on the payout for its later log lines, messages and events (docs/operations.md). */
  readonly correlationId?: string;
  readonly traceparent?: string;
  /**
   * The caller submits the payout itself right after creating it (the API, an event, a settlement): the sweeper
   * then leaves it alone for `inlineSubmitHoldMs`, so the two do not race for it, and sends it after that if
   * the caller never did (it crashed).
   */
  readonly submitsInline?: boolean;
  /**
   * The person who already approved this instruction before it became a payout: a recurring rule's approver,
   * carried onto each occurrence. Must differ from `actor` by identity; the payout then needs no new approval.
   */
  readonly approvedBy?: Principal;
  /** Facts about the request kept in the creation's audit event only (an event's stated requester). */
  readonly auditDetails?: Readonly<Record<string, string>>;
  /**
   * A record that commits with the payout's creation or not at all, built once the payout (and its id) is known:
   * a settlement's decision naming the payout it pays. Not written on a replay of the key. When its condition
   * fails (the record exists) the create throws CreationCompanionRefusedError and writes nothing.
   */
  readonly companion?: (payout: Payout) => CreationCompanion;
}

export interface CreatePayoutResult {
  readonly payout: Payout;
  /** True when the key had been used before with the same request: nothing new was created. */
  readonly replayed: boolean;
}

/** Provider endpoints that take whole naira (the interface types their amount as integer). */
const WHOLE_NAIRA_TYPES: ReadonlySet<string> = new Set(['wallet_transfer', 'wallet_credit', 'wallet_debit']);

/**
 * Accepts a payout request exactly once per idempotency key.
 *
 * @example
 * const { payout, replayed } = await createPayout(ctx, { request, idempotencyKey: 'inv-2041', origin: 'api', actor });
 */
export async function createPayout(
  ctx: EngineContext,
  command: CreatePayoutCommand,
): Promise<CreatePayoutResult> {
  const { payout, audit } = prepareCreation(ctx, command, ctx.clock.now());
  return settleCreation(
    ctx,
    command,
    payout,
    await ctx.store.create(payout, audit, undefined, command.companion?.(payout)),
  );
}

/** A new payout (version 1) and its creation's audit event, after the gate and validation; nothing written. */
export function prepareCreation(
  ctx: EngineContext,
  command: CreatePayoutCommand,
  now: Date,
): { payout: Payout; audit: AuditEvent } {
  const instruction = toInstruction(command.request);
  const gate = validate(ctx, command, instruction, now);
  if (command.approvedBy) assertMayApprove(command.actor, command.approvedBy, 'this payout');
  const requestFingerprint = fingerprint(command.request);
  const at = now.toISOString();
  const status = initialStatus(command.request, gate, command.approvedBy);
  const payout: Payout = {
    id: ulid(now),
    idempotencyKey: command.idempotencyKey,
    origin: command.origin,
    requestFingerprint,
    instruction,
    amountKobo: command.request.amount,
    currency: 'NGN',
    narration: command.request.narration,
    metadata: command.request.metadata ?? {},
    status,
    version: 1,
    requestedBy: command.actor,
    ...(command.approvedBy && { approvedBy: command.approvedBy }),
    ...(command.request.scheduleAt && { scheduleAt: new Date(command.request.scheduleAt).toISOString() }),
    ...(command.sourceRef && { sourceRef: command.sourceRef }),
    // Undefined when not given: the item's writer drops undefined attributes.
    correlationId: command.correlationId,
    traceparent: command.traceparent,
    capKey: gate.capCounter,
    submissionCount: 0,
    ...(command.submitsInline &&
      status === PayoutStatus.Pending && { nextActionAt: addMs(now, ctx.config.inlineSubmitHoldMs) }),
    createdAt: at,
    updatedAt: at,
  };
  const audit: AuditEvent = {
    payoutId: payout.id,
    sequence: 1,
    at,
    actor: command.actor,
    from: null,
    to: status,
    reason: reasonFor(status),
    details: {
      idempotencyKey: command.idempotencyKey,
      origin: command.origin,
      amountKobo: payout.amountKobo,
      ...(command.approvedBy && { approvedBy: command.approvedBy.id }),
      ...command.auditDetails,
    },
  };
  return { payout, audit };
}

/** The answer to a create once the store decided it: the payout written, a replay, or a conflict. */
export function settleCreation(
  ctx: EngineContext,
  command: CreatePayoutCommand,
  payout: Payout,
  outcome: CreateOutcome,
): CreatePayoutResult {
  if (outcome.created) {
    ctx.metrics.count('PayoutCreated', 1, { type: payout.instruction.type });
    ctx.logger.info('payout created', {
      payoutId: payout.id,
      idempotencyKey: payout.idempotencyKey,
      status: payout.status,
    });
    return { payout, replayed: false };
  }
  if (outcome.existing.requestFingerprint !== payout.requestFingerprint) {
    throw new IdempotencyConflictError('payout', command.idempotencyKey, outcome.existing.id);
  }
  ctx.logger.info('payout request replayed', {
    payoutId: outcome.existing.id,
    idempotencyKey: command.idempotencyKey,
  });
  return { payout: outcome.existing, replayed: true };
}

function validate(
  ctx: EngineContext,
  command: CreatePayoutCommand,
  instruction: PayoutInstruction,
  now: Date,
): Judgement {
  const { request, origin } = command;
  const issues: { path: string; message: string }[] = [];
  const described = describePayout(
    { instruction, amountKobo: request.amount, origin },
    command.approvedBy ?? command.actor,
  );
  let gate: Judgement | undefined;
  try {
    gate = judge(ctx.config, described);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    issues.push(...error.issues);
  }
  if (WHOLE_NAIRA_TYPES.has(request.type)) {
    try {
      toWholeNaira(request.amount);
    } catch {
      issues.push({
        path: 'amount',
        message: `must be a whole number of naira (a multiple of 100 kobo) for ${request.type}: the provider takes whole naira`,
      });
    }
  }
  if (request.type === 'wallet_transfer' && request.sourceWalletId === request.destinationWalletId) {
    issues.push({ path: 'destinationWalletId', message: 'must differ from sourceWalletId' });
  }
  // A recurrence occurrence materialised late (after an outage) keeps its own time: the sweep then pays it
  // within the allowed lateness or marks it missed, so it is never dropped silently. So does a payout run's row,
  // whose time was checked when the run was accepted and may pass while the run waits for approval.
  if (
    origin !== 'schedule' &&
    origin !== 'run' &&
    request.scheduleAt &&
    new Date(request.scheduleAt).getTime() <= now.getTime()
  ) {
    issues.push({ path: 'scheduleAt', message: 'must be in the future' });
  }
  if (issues.length > 0) {
    throw new ValidationError(issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '), issues);
  }
  // Without issues the gate judged (a refusal by the gate is an issue).
  if (!gate) throw new Error('createPayout: the gate gave no judgement');
  return gate;
}

function initialStatus(
  request: CreatePayoutRequest,
  gate: Judgement,
  approvedBy: Principal | undefined,
): PayoutStatus {
  if (request.scheduleAt) return PayoutStatus.Scheduled;
  if (gate.approvalRequired && !approvedBy) return PayoutStatus.PendingApproval;
  return PayoutStatus.Pending;
}

function reasonFor(status: PayoutStatus): string {
  switch (status) {
    case PayoutStatus.Scheduled:
      return 'accepted; waits for its scheduled time';
    case PayoutStatus.PendingApproval:
      return 'accepted; at or above the approval threshold, waits for a second person';
    default:
      return 'accepted; ready to submit';
  }
}
