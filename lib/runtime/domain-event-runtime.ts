import { EventBridgePublisher, type EventPublisher } from '../events/event-publisher.js';
import { lambdaLogger } from '../shared/lambda-logger.js';
import type { Logger } from '../shared/logger.js';

/** What the stream publisher (`publish-domain-events`) is made of: no table, no provider, only the bus. */
export interface DomainEventRuntime {
  readonly publisher: EventPublisher;
  readonly logger: Logger;
}

let cached: DomainEventRuntime | undefined;

/**
 * Built once per container from EVENT_BUS_NAME, on first use, so a missing variable fails the first invocation
 * with its name (as `runtimeFromProcessEnv` does for the other functions).
 */
export function domainEventRuntimeFromProcessEnv(): DomainEventRuntime {
  if (cached) return cached;
  const busName = process.env.EVENT_BUS_NAME;
  if (!busName) throw new Error('EVENT_BUS_NAME is not set');
  cached = {
    publisher: EventBridgePublisher.fromEnvironment(busName),
    logger: lambdaLogger({ service: 'payouts-domain-events' }),
  };
  return cached;
}
