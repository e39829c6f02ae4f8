import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorrectionWorkSchema, correctionMessageOf } from '../../lib/bulk-corrections/job-queue.js';
import {
  APPROVAL_DECIDED_EVENT,
  APPROVAL_REQUESTED_EVENT,
  ApprovalDecidedDetailSchema,
  ApprovalRequestedDetailSchema,
  approvalEventOf,
  DOMAIN_EVENT_MAXIMA,
  DOMAIN_EVENT_SOURCE,
  DomainEventDetailSchema,
  domainEventOf,
  PAID_TWICE_EVENT,
  PayoutRunEventDetailSchema,
  PUBLISHED_OUTCOMES,
  payoutRunEventOf,
  RUN_COMPLETED_EVENT,
  RUN_NEEDS_ATTENTION_EVENT,
} from '../../lib/events/domain-events.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { SubmissionRequestSchema } from '../../lib/payouts/queue/submission-queue.js';
import { toPayoutItem } from '../../lib/payouts/store/item-codec.js';
import { bankTransfer, command, type EngineHarness, startEngineHarness } from '../support/engine-harness.js';
import { maxJsonBytes } from '../support/max-json-size.js';

/** EventBridge's limit on one PutEvents entry, and SQS's on one message and on one SendMessageBatch. */
const EVENTBRIDGE_ENTRY_LIMIT = 256 * 1024;
const SQS_MESSAGE_LIMIT = 256 * 1024;
const SQS_BATCH_LIMIT = 256 * 1024;
/** Messages per SendMessageBatch (SQS allows ten). */
const SQS_BATCH_SIZE = 10;
/** An event bus name or ARN at its longest (EventBridge: 256 characters). */
const BUS_NAME_MAX = 256;

describe('domain events fit an EventBridge entry (256 KB)', () => {
  const detailTypes = [...Object.values(PUBLISHED_OUTCOMES), PAID_TWICE_EVENT];

  it.each(detailTypes)(
    '%s: its largest entry, from the detail schema’s maxima, is below 256 KB',
    (detailType) => {
      // AWS counts an entry as its Time (14 bytes), Source, DetailType, Detail and resources (none here).
      const entry =
        14 +
        Buffer.byteLength(DOMAIN_EVENT_SOURCE) +
        Buffer.byteLength(detailType) +
        maxJsonBytes(DomainEventDetailSchema) +
        BUS_NAME_MAX;
      expect(entry).toBeLessThan(EVENTBRIDGE_ENTRY_LIMIT);
    },
  );

  it.each([RUN_COMPLETED_EVENT, RUN_NEEDS_ATTENTION_EVENT])(
    '%s: its largest entry, from the run event schema’s maxima, is below 256 KB',
    (detailType) => {
      const entry =
        14 +
        Buffer.byteLength(DOMAIN_EVENT_SOURCE) +
        Buffer.byteLength(detailType) +
        maxJsonBytes(PayoutRunEventDetailSchema) +
        BUS_NAME_MAX;
      expect(entry).toBeLessThan(EVENTBRIDGE_ENTRY_LIMIT);
    },
  );

  it("translates a run item's recorded end into an event the run schema accepts, with no row or account in it", () => {
    const runId = '01JZ0000000000000000000000';
    const item = {
      pk: `PAYOUT_RUN#${runId}`,
      sk: 'RUN',
      entity: 'payout-run',
      runId,
      state: 'needs_attention',
      count: 10_000,
      totalKobo: 9_000_000_000,
      largestRows: [{ row: 1, reference: 'emp-1', amountKobo: 1 }],
      endedRows: 10_000,
      endedAttention: 2,
      endedSentKobo: 8_000_000_000,
      endedFailedKobo: 1_000_000_000,
      ended_succeeded: 9_998,
      ended_failed: 2,
      endedAt: '2030-06-28T09:00:00.000Z',
    };
    const event = payoutRunEventOf({
      eventName: 'MODIFY',
      dynamodb: {
        NewImage: marshall(item),
        OldImage: marshall({ ...item, endedAt: undefined }, { removeUndefinedValues: true }),
      },
    });
    expect(event?.detailType).toBe(RUN_NEEDS_ATTENTION_EVENT);
    expect(PayoutRunEventDetailSchema.safeParse(event?.detail).success).toBe(true);
    expect(JSON.stringify(event)).not.toContain('emp-1');
  });

  describe('the translation keeps every field within the schema’s maxima', () => {
    let h: EngineHarness;
    beforeAll(async () => {
      h = await startEngineHarness();
    });
    afterAll(async () => h.close());

    it('clips a payout whose provider texts are far over any limit to an event the schema accepts', async () => {
      const { payout } = await h.engine.create(command(bankTransfer(10_000), 'sizes-huge'));
      const huge = 'x'.repeat(300 * 1024);
      const many = Array.from({ length: 1_000 }, (_, n) => n + 1);
      const swollen = {
        ...payout,
        status: PayoutStatus.NeedsReview,
        sourceRef: huge,
        receipt: {
          transactionId: huge,
          reference: huge,
          sessionId: huge,
          status: huge,
          chargesKobo: 0,
          paidAt: huge,
        },
        failure: { code: huge, message: huge },
        paidTwice: { attempts: many, transactionIds: many.map(() => huge) },
      };
      const event = domainEventOf({
        eventName: 'MODIFY',
        dynamodb: {
          NewImage: marshall(toPayoutItem(swollen), { removeUndefinedValues: true }),
          OldImage: marshall({ entity: 'payout', status: 'unknown' }),
        },
      });
      expect(event?.detailType).toBe(PAID_TWICE_EVENT);
      // strictObject: a field the translation adds without a maximum in the schema fails here too.
      expect(DomainEventDetailSchema.safeParse(event?.detail).success).toBe(true);
      const bytes = Buffer.byteLength(JSON.stringify(event?.detail));
      expect(bytes).toBeLessThanOrEqual(maxJsonBytes(DomainEventDetailSchema));
      expect(event?.detail.failure?.message).toHaveLength(DOMAIN_EVENT_MAXIMA.text);
      expect(event?.detail.paidTwice?.transactionIds).toHaveLength(DOMAIN_EVENT_MAXIMA.items);
    });
  });
});

describe('approval events fit an EventBridge entry (256 KB)', () => {
  const entryOf = (detailType: string, detailBytes: number) =>
    14 + Buffer.byteLength(DOMAIN_EVENT_SOURCE) + Buffer.byteLength(detailType) + detailBytes + BUS_NAME_MAX;

  it.each([
    { detailType: APPROVAL_REQUESTED_EVENT, schema: ApprovalRequestedDetailSchema },
    { detailType: APPROVAL_DECIDED_EVENT, schema: ApprovalDecidedDetailSchema },
  ])(
    '$detailType: its largest entry, from the detail schema’s maxima, is below 256 KB',
    ({ detailType, schema }) => {
      expect(entryOf(detailType, maxJsonBytes(schema))).toBeLessThan(EVENTBRIDGE_ENTRY_LIMIT);
    },
  );

  it('clips a held correction whose ids and people are far over any limit to events the schemas accept', () => {
    const huge = 'x'.repeat(300 * 1024);
    const held = {
      entity: 'bulk-item-correction',
      correctionId: huge,
      bulkPayoutItemId: huge,
      fields: { amount: 5_000_000 },
      requestedBy: { id: huge, kind: 'user' },
      requestedAt: huge,
    };
    const requested = approvalEventOf({
      eventName: 'INSERT',
      dynamodb: { NewImage: marshall({ ...held, status: 'pending_approval' }) },
    });
    const decided = approvalEventOf({
      eventName: 'MODIFY',
      dynamodb: {
        OldImage: marshall({ ...held, status: 'pending_approval' }),
        NewImage: marshall({
          ...held,
          status: 'approved',
          approvedBy: { id: huge, kind: huge },
          approvedAt: huge,
        }),
      },
    });
    expect(requested?.detailType).toBe(APPROVAL_REQUESTED_EVENT);
    expect(decided?.detailType).toBe(APPROVAL_DECIDED_EVENT);
    expect(ApprovalRequestedDetailSchema.safeParse(requested?.detail).success).toBe(true);
    expect(ApprovalDecidedDetailSchema.safeParse(decided?.detail).success).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(decided?.detail))).toBeLessThanOrEqual(
      maxJsonBytes(ApprovalDecidedDetailSchema),
    );
  });
});

describe('submission-queue messages fit SQS (256 KB a message, 256 KB a batch)', () => {
  const kinds = [
    { kind: 'payout submission', schema: SubmissionRequestSchema },
    { kind: 'bulk-correction job work', schema: CorrectionWorkSchema },
  ];

  it.each(kinds)('$kind: its largest message and a batch of ten of them are below 256 KB', ({ schema }) => {
    const message = maxJsonBytes(schema);
    expect(message).toBeLessThan(SQS_MESSAGE_LIMIT);
    expect(SQS_BATCH_SIZE * message).toBeLessThan(SQS_BATCH_LIMIT);
  });

  it('counts a real correction message of 500 rows within the bound', () => {
    const work = CorrectionWorkSchema.parse({
      kind: 'bulk-correction',
      jobId: '01J0000000000000000000000A',
      bulkPayoutItemId: 'b'.repeat(64),
      indexes: Array.from({ length: 500 }, (_, n) => 9_999 - n),
    });
    expect(Buffer.byteLength(correctionMessageOf(work).body)).toBeLessThanOrEqual(
      maxJsonBytes(CorrectionWorkSchema),
    );
  });

  it('refuses to bound a schema without maxima', async () => {
    const z = await import('../../lib/shared/zod.js');
    expect(() => maxJsonBytes(z.object({ note: z.string() }))).toThrow(
      /\$\.note: a string without a maximum length/,
    );
    expect(() => maxJsonBytes(z.object({ rows: z.array(z.int()) }))).toThrow(
      /\$\.rows: an array without a maximum/,
    );
  });
});
