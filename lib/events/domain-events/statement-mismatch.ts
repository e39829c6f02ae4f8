import { clipText } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { FINDING_KINDS, type StatementLineKind } from '../../statements/index.js';
import { DOMAIN_EVENT_MAXIMA, kobo, upTo } from './event-fields.js';
import { decode, type PayoutStreamRecord } from './stream-record.js';

const { id, word, text } = DOMAIN_EVENT_MAXIMA;

/**
 * Published once for each finding of a daily statement (docs/statements.md): a provider record not ours, a payout
 * the provider does not list, an amount or fee that differs, a double, a status that differs. `eventId` is
 * `statement:<date>:<kind>:<key>`; a re-run of the day that finds it again publishes nothing (the line exists).
 */
export const STATEMENT_MISMATCH_EVENT = 'Statement Mismatch';

/** A statement finding, version 1. Money is integer kobo. */
export interface StatementMismatchEvent {
  readonly detailType: typeof STATEMENT_MISMATCH_EVENT;
  readonly detail: z.output<typeof StatementMismatchDetailSchema>;
}

/** The `detail` of a `Statement Mismatch`, with every maximum (test/infra/message-sizes.test.ts). */
export const StatementMismatchDetailSchema = z.strictObject({
  version: z.literal('1'),
  eventId: upTo(3 * id),
  date: upTo(word),
  kind: upTo(word),
  key: upTo(id),
  transactionId: z.optional(upTo(id)),
  payoutId: z.optional(upTo(id)),
  refundId: z.optional(upTo(id)),
  amountKobo: kobo,
  expectedAmountKobo: z.optional(kobo),
  chargesKobo: z.optional(kobo),
  expectedChargesKobo: z.optional(kobo),
  detail: upTo(text),
  occurredAt: upTo(word),
});

/** The statement line kinds that are findings, and publish a `Statement Mismatch` when first written. */
export const MISMATCH_LINE_KINDS: readonly string[] = FINDING_KINDS;

const StatementLineItemSchema = z.object({
  entity: z.literal('statement_line'),
  pk: z.string().check(z.regex(/^STATEMENT#\d{4}-\d{2}-\d{2}$/)),
  firstSeenAt: z.string(),
  line: z.object({
    kind: z.enum(FINDING_KINDS as [StatementLineKind, ...StatementLineKind[]]),
    key: z.string(),
    transactionId: z.optional(z.string()),
    payoutId: z.optional(z.string()),
    refundId: z.optional(z.string()),
    amountKobo: z.int(),
    expectedAmountKobo: z.optional(z.int()),
    chargesKobo: z.optional(z.int()),
    expectedChargesKobo: z.optional(z.int()),
    detail: z.string(),
  }),
});

/**
 * A statement line's first write, if it is a finding: its `Statement Mismatch`. Only an INSERT publishes: a
 * re-run rewrites the line (MODIFY), and the finding was published when it was first seen.
 */
export function statementMismatchOf(record: PayoutStreamRecord): StatementMismatchEvent | undefined {
  const image = record.dynamodb?.NewImage;
  if (!image || record.eventName !== 'INSERT') return undefined;
  const parsed = StatementLineItemSchema.safeParse(decode(image));
  if (!parsed.success) return undefined;
  const { pk, line, firstSeenAt } = parsed.data;
  const date = pk.slice('STATEMENT#'.length);
  return {
    detailType: STATEMENT_MISMATCH_EVENT,
    detail: {
      version: '1',
      eventId: clipText(`statement:${date}:${line.kind}:${line.key}`, 3 * id),
      date,
      kind: line.kind,
      key: clipText(line.key, id),
      ...(line.transactionId !== undefined && { transactionId: clipText(line.transactionId, id) }),
      ...(line.payoutId !== undefined && { payoutId: clipText(line.payoutId, id) }),
      ...(line.refundId !== undefined && { refundId: clipText(line.refundId, id) }),
      amountKobo: line.amountKobo,
      ...(line.expectedAmountKobo !== undefined && { expectedAmountKobo: line.expectedAmountKobo }),
      ...(line.chargesKobo !== undefined && { chargesKobo: line.chargesKobo }),
      ...(line.expectedChargesKobo !== undefined && { expectedChargesKobo: line.expectedChargesKobo }),
      detail: clipText(line.detail, text),
      occurredAt: clipText(firstSeenAt, word),
    },
  };
}
