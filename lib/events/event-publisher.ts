import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { errorKind } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { xrayTraceHeaderOf } from '../shared/tracing.js';
import { DOMAIN_EVENT_SOURCE, isPayoutEvent, type PublishedEvent } from './domain-events.js';

/** Publishes domain events; throws when any of them could not be published, so the batch is retried. */
export interface EventPublisher {
  /** `signal` abandons the call (it then throws): an event it may have put is put again, and dropped by eventId. */
  publish(events: readonly PublishedEvent[], options?: { signal?: AbortSignal }): Promise<void>;
}

/** One event of a batch that EventBridge refused. */
export class PublishFailedError extends /* @__PURE__ */ errorKind('PublishFailedError', 'PUBLISH_FAILED') {
  constructor(
    readonly failedEventIds: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`EventBridge refused ${failedEventIds.length} event(s): ${failedEventIds.join(', ')}`, options);
  }
}

const PUT_EVENTS_BATCH = 10;

/** Publishes to an EventBridge bus, ten entries per PutEvents call as the API allows. */
export class EventBridgePublisher implements EventPublisher {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {}

  static fromEnvironment(busName: string): EventBridgePublisher {
    return new EventBridgePublisher(new EventBridgeClient({}), busName);
  }

  async publish(events: readonly PublishedEvent[], options: { signal?: AbortSignal } = {}): Promise<void> {
    const failed: string[] = [];
    for (let start = 0; start < events.length; start += PUT_EVENTS_BATCH) {
      const batch = events.slice(start, start + PUT_EVENTS_BATCH);
      const result = await this.client.send(
        new PutEventsCommand(putEventsInput(batch, this.busName)),
        options.signal ? { abortSignal: options.signal } : {},
      );
      result.Entries?.forEach((entry, index) => {
        const event = batch[index];
        if (entry.ErrorCode && event) failed.push(event.detail.eventId);
      });
    }
    if (failed.length > 0) throw new PublishFailedError(failed);
  }
}

/**
 * The PutEvents request for up to ten domain events: what the publisher sends (and `npm start` records). A
 * payout's event carries the trace of the request that created it as EventBridge's `TraceHeader` (X-Ray's form),
 * so its consumers' spans join the payout's trace.
 */
export function putEventsInput(events: readonly PublishedEvent[], busName: string) {
  return {
    Entries: events.map((event) => {
      const traceHeader = isPayoutEvent(event) ? xrayTraceHeaderOf(event.detail.traceparent) : undefined;
      return {
        EventBusName: busName,
        Source: DOMAIN_EVENT_SOURCE,
        DetailType: event.detailType,
        Detail: JSON.stringify(event.detail),
        Time: new Date(event.detail.occurredAt),
        ...(traceHeader && { TraceHeader: traceHeader }),
      };
    }),
  };
}

/** Local mode: subscribers in the same process, and one structured log line per event. */
export class InProcessEventBus implements EventPublisher {
  readonly #subscribers: ((event: PublishedEvent) => void)[] = [];

  constructor(private readonly logger?: Logger) {}

  subscribe(subscriber: (event: PublishedEvent) => void): () => void {
    this.#subscribers.push(subscriber);
    return () => {
      const index = this.#subscribers.indexOf(subscriber);
      if (index >= 0) this.#subscribers.splice(index, 1);
    };
  }

  async publish(events: readonly PublishedEvent[]): Promise<void> {
    for (const event of events) {
      this.logger?.info('domain event', { detailType: event.detailType, ...event.detail });
      for (const subscriber of this.#subscribers) subscriber(event);
    }
  }
}
