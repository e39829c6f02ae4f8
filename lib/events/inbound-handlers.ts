import { type Principal, systemPrincipal } from '../controls/index.js';
import { createAndSubmit, type Payout, type PayoutEngine } from '../payouts/index.js';
import type { PayOutResult, PayoutSender, SettlementService } from '../settlement/index.js';
import { SettlementNotConfiguredError } from '../settlement/index.js';
import { correlationIdFrom } from '../shared/correlation.js';
import { IdempotencyConflictError, ValidationError } from '../shared/errors.js';
import { withLogContext } from '../shared/log-context.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import type { SendWindow } from '../shared/send-window.js';
import { InvalidEventError } from './inbound-errors.js';
import { parsePayoutRequested, parseSettlementAvailable } from './inbound-events.js';
import { InboundEventType } from './schemas.js';

export interface PayoutRequestedOutcome {
  readonly payoutId: string;
  readonly status: Payout['status'];
  /** True when the event (or another with the same key) had created the payout before. */
  readonly replayed: boolean;
}

/**
 * `Payout Requested`: validates the whole event first, then creates the payout through the engine with
 * origin `event` and key `detail.idempotencyKey ?? event.id`, and submits it when it is pending. A
 * redelivery, even a concurrent one, finds the same payout. A request the engine refuses (above the
 * maximum, a key reused for a different payout) is as invalid as a malformed one: it can never succeed.
 *
 * @throws InvalidEventError before anything is written
 */
export async function handlePayoutRequested(
  engine: PayoutEngine,
  event: unknown,
  logger: Logger = silentLogger,
  delivery: InboundDelivery = {},
): Promise<PayoutRequestedOutcome> {
  const parsed = parsePayoutRequested(event);
  // Derived from the event's id, so every redelivery of the event logs and stores the same one.
  const correlationId = correlationIdFrom('evt', parsed.eventId);
  return withLogContext({ correlationId }, () =>
    createRequested(engine, parsed, correlationId, logger, delivery),
  );
}

async function createRequested(
  engine: PayoutEngine,
  parsed: ReturnType<typeof parsePayoutRequested>,
  correlationId: string,
  logger: Logger,
  delivery: InboundDelivery,
): Promise<PayoutRequestedOutcome> {
  // The requester is the producer, which EventBridge vouches for (the bus policy admits only the stage's
  // producer roles), never the free text `detail.requestedBy`: a system principal can never approve, so
  // an event above the threshold always waits for a person. The stated name is kept in the audit only.
  const actor: Principal = eventProducer(parsed.source);
  let created: { payout: Payout; replayed: boolean };
  try {
    created = await createAndSubmit(
      engine.ctx,
      {
        request: parsed.request,
        idempotencyKey: parsed.idempotencyKey,
        origin: 'event',
        actor,
        correlationId,
        ...(parsed.requestedBy !== undefined && { auditDetails: { statedRequester: parsed.requestedBy } }),
      },
      // A redelivered event whose first delivery stopped before sending (a crash) sends it now.
      { submitReplayed: true, ...(delivery.sendWindow && { sendWindow: delivery.sendWindow }) },
    );
  } catch (error) {
    if (error instanceof ValidationError) {
      const issues = error.issues.map((issue) => ({ ...issue, path: `detail.payout.${issue.path}` }));
      throw new InvalidEventError(
        parsed.eventId,
        issues.length > 0 ? issues : [{ path: 'detail.payout', message: error.message }],
        {
          cause: error,
        },
      );
    }
    if (error instanceof IdempotencyConflictError) {
      throw new InvalidEventError(
        parsed.eventId,
        [{ path: 'detail.idempotencyKey', message: error.message }],
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  const payout = created.payout;
  logger.info('payout requested by event', {
    eventId: parsed.eventId,
    payoutId: payout.id,
    replayed: created.replayed,
  });
  return { payoutId: payout.id, status: payout.status, replayed: created.replayed };
}

/** The principal of an inbound event's producer: the event source, a system that can never approve. */
export function eventProducer(source: string): Principal {
  return systemPrincipal(`event:${source}`);
}

/**
 * `Settlement Available`: pays the settlement out through the settlement service (which reads it fresh from
 * the provider), idempotent on the settlement id like the poll and the ops call. The payout is sent by
 * `sender`: the deployed function hands it to the submission workers (settlement-target.ts); a person's replay
 * of a dead letter sends it at once.
 *
 * @throws InvalidEventError before anything is read or written
 * @throws SettlementNotConfiguredError when the deployment has no settlement policy
 */
export async function handleSettlementAvailable(
  settlements: SettlementService | undefined,
  event: unknown,
  sender?: PayoutSender,
): Promise<PayOutResult> {
  const parsed = parseSettlementAvailable(event);
  if (!settlements) throw new SettlementNotConfiguredError();
  return settlements.payOut(
    parsed.settlementId,
    'event',
    { id: 'system:settlement-event', kind: 'system' },
    undefined,
    sender,
  );
}

/**
 * How an event is delivered to its handler: by its rule (no bound but the function's own timeout), or by a person's
 * replay through the ops API, whose request deadline bounds any inline send (`sendWindow`, as POST /payouts).
 */
export interface InboundDelivery {
  readonly sendWindow?: SendWindow;
}

/** What the inbound handlers need: the engine, instant settlement when configured, and a logger. */
export interface InboundDependencies {
  readonly engine: PayoutEngine;
  readonly settlements: SettlementService | undefined;
  readonly logger: Logger;
}

/** One inbound event type's handler. */
export type InboundHandler = (event: unknown, delivery?: InboundDelivery) => Promise<unknown>;

/**
 * The handler of each inbound event type: what the EventBridge rules invoke in AWS, the local bus delivers in
 * `npm start`, and a person's replay of a dead letter calls again.
 */
export function inboundEventHandlers(
  deps: InboundDependencies,
): Readonly<Record<InboundEventType, InboundHandler>> {
  return {
    [InboundEventType.PayoutRequested]: (event, delivery) =>
      handlePayoutRequested(deps.engine, event, deps.logger, delivery),
    [InboundEventType.SettlementAvailable]: (event, delivery) =>
      handleSettlementAvailable(
        deps.settlements,
        event,
        delivery?.sendWindow ? { by: 'inline', sendWindow: delivery.sendWindow } : undefined,
      ),
  };
}
