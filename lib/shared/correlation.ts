import { randomUUID } from 'node:crypto';
import * as z from './zod.js';

/**
 * A correlation id: what ties every log line, record, message and event of one payout's path together
 * (docs/operations.md). A caller may choose it (`X-Correlation-Id`); it is then bounded and of safe characters
 * only, so it can go into a log line, a message attribute and a query unescaped.
 */
export const CorrelationIdSchema = z.lazy(() =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(64),
      z.regex(/^[A-Za-z0-9._:-]+$/, 'must be letters, digits and . _ : - only'),
    ),
);

/** A new correlation id, for a request that brought none. */
export const newCorrelationId = (): string => randomUUID();

/**
 * The correlation id of work an event or a rule started (a `Payout Requested` event, a recurrence's occurrence,
 * a run's row): derived from what names it, so every retry of the same event carries the same id.
 *
 * @example correlationIdFrom('evt', event.id) // 'evt:6a7e8feb-b491-4cf7-a9f1-bf3703467718'
 */
export const correlationIdFrom = (kind: string, id: string): string =>
  `${kind}:${id.replace(/[^A-Za-z0-9._:-]/g, '_')}`.slice(0, 64);
