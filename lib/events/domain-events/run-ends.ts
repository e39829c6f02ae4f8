import { ROW_ENDS, type RowEnd } from '../../payout-runs/index.js';
import { clipText } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { DOMAIN_EVENT_MAXIMA, kobo, upTo } from './event-fields.js';
import { decode, type PayoutStreamRecord } from './stream-record.js';

const { id, word } = DOMAIN_EVENT_MAXIMA;

/** Published once when a run ends with every row `succeeded` (or cancelled with nothing to look at). */
export const RUN_COMPLETED_EVENT = 'Payout Run Completed';
/** Published once when a run ends with rows failed, missed, refused or waiting in `needs_review`. */
export const RUN_NEEDS_ATTENTION_EVENT = 'Payout Run Needs Attention';
export type PayoutRunEventType = typeof RUN_COMPLETED_EVENT | typeof RUN_NEEDS_ATTENTION_EVENT;

const rowCount = z.int().check(z.gte(0), z.lte(100_000));

/**
 * The `detail` of a run's end event, version 1, with every maximum (test/infra/message-sizes.test.ts). `eventId`
 * is `run:<runId>:ended`: one per run, recorded once (lib/payout-runs/run-ends.ts). No row, beneficiary or
 * account appears: the rows are read with `GET /payout-runs/{id}/payouts`.
 */
export const PayoutRunEventDetailSchema = z.strictObject({
  version: z.literal('1'),
  eventId: upTo(id),
  runId: upTo(id),
  status: z.enum(['completed', 'needs_attention', 'cancelled']),
  count: rowCount,
  counts: z.strictObject(
    Object.fromEntries(ROW_ENDS.map((end) => [end, z.optional(rowCount)])) as Record<
      RowEnd,
      z.ZodMiniOptional<typeof rowCount>
    >,
  ),
  totalKobo: kobo,
  sentKobo: kobo,
  failedKobo: kobo,
  occurredAt: upTo(word),
});

/** A run's end, version 1. Money is integer kobo. */
export interface PayoutRunEvent {
  readonly detailType: PayoutRunEventType;
  readonly detail: z.output<typeof PayoutRunEventDetailSchema>;
}

const RunItemSchema = z.object({
  entity: z.literal('payout-run'),
  runId: z.string(),
  state: z.enum(['completed', 'needs_attention', 'cancelled']),
  count: z.int(),
  totalKobo: z.int(),
  endedAt: z.string(),
  endedAttention: z.optional(z.int()),
  endedSentKobo: z.optional(z.int()),
  endedFailedKobo: z.optional(z.int()),
});

/**
 * A run item's change that records its end (`endedAt` newly set): its end event, `Payout Run Needs Attention` when
 * any row needs a person, else `Payout Run Completed`. Any other change of a run publishes nothing.
 */
export function payoutRunEventOf(record: PayoutStreamRecord): PayoutRunEvent | undefined {
  const image = record.dynamodb?.NewImage;
  if (!image || record.eventName !== 'MODIFY') return undefined;
  const item = decode(image);
  const parsed = RunItemSchema.safeParse(item);
  if (!parsed.success) return undefined;
  const old = record.dynamodb?.OldImage ? decode(record.dynamodb.OldImage) : undefined;
  if (old?.endedAt !== undefined) return undefined;
  const run = parsed.data;
  const counts: Partial<Record<RowEnd, number>> = {};
  for (const end of ROW_ENDS) {
    const value = item[`ended_${end}`];
    if (typeof value === 'number' && value > 0) counts[end] = value;
  }
  return {
    detailType: (run.endedAttention ?? 0) > 0 ? RUN_NEEDS_ATTENTION_EVENT : RUN_COMPLETED_EVENT,
    detail: {
      version: '1',
      eventId: clipText(`run:${run.runId}:ended`, id),
      runId: clipText(run.runId, id),
      status: run.state,
      count: run.count,
      counts,
      totalKobo: run.totalKobo,
      sentKobo: run.endedSentKobo ?? 0,
      failedKobo: run.endedFailedKobo ?? 0,
      occurredAt: clipText(run.endedAt, word),
    },
  };
}

/** The detail types of a run's end. */
export const RUN_EVENT_TYPES: ReadonlySet<string> = new Set([RUN_COMPLETED_EVENT, RUN_NEEDS_ATTENTION_EVENT]);
