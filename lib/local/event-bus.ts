import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../shared/logger.js';
import { describeIssues, fieldIssues } from '../shared/validation.js';
import * as z from '../shared/zod.js';
import { refusalOf } from './loopback-guard.js';
import { readBoundedBody } from './request-body.js';

/** The EventBridge event a rule target receives. */
export interface LocalBusEvent {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: unknown;
}

/** A rule on the local bus: events with this source and detail type go to `deliver`. */
export interface LocalEventRule {
  readonly name: string;
  readonly source: string;
  readonly detailType: string;
  deliver(event: LocalBusEvent): Promise<unknown>;
}

export interface LocalEventBus {
  readonly url: string;
  /** Resolves once every event accepted so far has been delivered (or has failed). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** The `PutEvents` request, as the AWS SDK and CLI send it (JSON protocol, `AWSEvents.PutEvents`). */
const PutEventsSchema = z.object({
  Entries: z
    .array(
      z.object({
        Source: z.string().check(z.minLength(1)),
        DetailType: z.string().check(z.minLength(1)),
        Detail: z.string(),
        EventBusName: z.optional(z.string()),
        Resources: z.optional(z.array(z.string())),
        Time: z.optional(z.union([z.string(), z.number()])),
      }),
    )
    .check(z.minLength(1), z.maxLength(10)),
});

const MAX_BODY_BYTES = 256 * 1024;

/** What the AWS SDK and CLI send (the JSON 1.1 protocol of EventBridge), and plain JSON for `curl`. */
export const BUS_CONTENT_TYPES = ['application/x-amz-json-1.1', 'application/json'] as const;

/**
 * A local stand-in for the service's EventBridge bus, so `npm start` takes inbound events the way AWS does.
 * It speaks `PutEvents` on 127.0.0.1 (point the SDK's or the CLI's endpoint at it; a plain JSON POST of
 * `{ "Entries": [...] }` works too), answers at once with an id per entry, and then delivers each event to the
 * rule that matches its source and detail type, as the bus delivers to a rule's target: asynchronously, the
 * outcome logged. Only a local client is served: a loopback Host, no foreign Origin, and a JSON content type
 * (`refusalOf`), so a web page cannot put events (a `text/plain` form post once created a payout). An entry whose `Detail` is not a JSON object is refused in the answer (`MalformedDetail`), as
 * EventBridge does; an event no rule matches is logged and dropped.
 *
 * @example
 * const bus = await serveLocalEventBus([{ name: 'payout-requested', source: 'merchant.payouts',
 *   detailType: 'Payout Requested', deliver: (event) => handlePayoutRequested(engine, event, logger) }],
 *   { port: 3001, logger });
 * // aws events put-events --endpoint-url http://127.0.0.1:3001 --entries '[...]'
 */
export async function serveLocalEventBus(
  rules: readonly LocalEventRule[],
  options: { port: number; logger: Logger },
): Promise<LocalEventBus> {
  const { logger } = options;
  const deliveries = new Set<Promise<void>>();

  const deliver = (event: LocalBusEvent): void => {
    const rule = rules.find((r) => r.source === event.source && r.detailType === event['detail-type']);
    if (!rule) {
      logger.warn('local event bus: no rule matches the event; dropped', {
        eventId: event.id,
        source: event.source,
        detailType: event['detail-type'],
      });
      return;
    }
    const delivery = rule.deliver(event).then(
      (outcome) =>
        logger.info('local event bus: event delivered', { rule: rule.name, eventId: event.id, outcome }),
      (error: unknown) =>
        logger.error('local event bus: delivery failed', {
          rule: rule.name,
          eventId: event.id,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        }),
    );
    deliveries.add(delivery);
    void delivery.finally(() => deliveries.delete(delivery));
  };

  let port = options.port;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refusal = refusalOf(req.method ?? 'GET', req.headers, port, BUS_CONTENT_TYPES);
    if (refusal) return reply(res, refusal.status, { __type: refusal.code, message: refusal.message });
    if (req.method !== 'POST')
      return reply(res, 405, { __type: 'MethodNotAllowed', message: 'POST PutEvents here' });
    const target = req.headers['x-amz-target'];
    if (target !== undefined && target !== 'AWSEvents.PutEvents') {
      return reply(res, 400, {
        __type: 'UnknownOperationException',
        message: `only PutEvents is served, not ${target}`,
      });
    }
    const raw = await readBoundedBody(req, MAX_BODY_BYTES);
    if (raw === undefined) {
      return reply(res, 400, {
        __type: 'SerializationException',
        message: `the body is over ${MAX_BODY_BYTES} bytes`,
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (error) {
      return reply(res, 400, {
        __type: 'SerializationException',
        message: error instanceof Error ? error.message : 'the body is not JSON',
      });
    }
    const parsed = PutEventsSchema.safeParse(body);
    if (!parsed.success) {
      return reply(res, 400, {
        __type: 'ValidationException',
        message: describeIssues(fieldIssues(parsed.error)),
      });
    }
    const accepted: LocalBusEvent[] = [];
    const entries = parsed.data.Entries.map((entry) => {
      let detail: unknown;
      try {
        detail = JSON.parse(entry.Detail);
      } catch {
        detail = undefined;
      }
      if (detail === null || typeof detail !== 'object' || Array.isArray(detail)) {
        return {
          ErrorCode: 'MalformedDetail',
          ErrorMessage: 'Detail is malformed: it must be a JSON object.',
        };
      }
      const event: LocalBusEvent = {
        version: '0',
        id: randomUUID(),
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: '000000000000',
        time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        region: 'local',
        resources: entry.Resources ?? [],
        detail,
      };
      accepted.push(event);
      return { EventId: event.id };
    });
    reply(res, 200, { FailedEntryCount: entries.length - accepted.length, Entries: entries });
    for (const event of accepted) deliver(event);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error('local event bus: request failed', { error: String(error) });
      if (!res.headersSent)
        reply(res, 500, { __type: 'InternalException', message: 'local event bus failure' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const settled = async () => {
    while (deliveries.size > 0) await Promise.allSettled([...deliveries]);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    settled,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await settled();
    },
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  res.end(JSON.stringify(body));
}
