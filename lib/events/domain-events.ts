import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ROW_ENDS, type RowEnd } from '../payout-runs/index.js';
import { fromPayoutItem, newlyPaidTwice, type Payout, PayoutStatus } from '../payouts/index.js';
import { clipText, FIELD_MAXIMA } from '../shared/field-limits.js';
import * as z from '../shared/zod.js';
import { FINDING_KINDS, type StatementLineKind } from '../statements/index.js';

/** The EventBridge `source` of every domain event this project publishes. */
export const DOMAIN_EVENT_SOURCE = 'merchant.payouts.engine';

/** The outcomes other systems subscribe to, by the status a payout reached. */
export const PUBLISHED_OUTCOMES = {
  [PayoutStatus.Succeeded]: 'Payout Succeeded',
  [PayoutStatus.Failed]: 'Payout Failed',
  [PayoutStatus.NeedsReview]: 'Payout Needs Review',
  [PayoutStatus.Missed]: 'Payout Missed',
} as const satisfies Partial<Record<PayoutStatus, string>>;

/**
 * Published instead of `Payout Needs Review` when the reconciler found more than one attempt of a payout paid
 * (status `needs_review`, `detail.paidTwice` naming the attempts and provider transactions).
 */
export const PAID_TWICE_EVENT = 'Payout Paid Twice';
export type DomainEventType =
  | (typeof PUBLISHED_OUTCOMES)[keyof typeof PUBLISHED_OUTCOMES]
  | typeof PAID_TWICE_EVENT;

/**
 * A domain event, version 1. `eventId` is `<payoutId>:<version>`: one per state change, so a consumer
 * that sees it twice (streams and EventBridge deliver at least once) can drop the second.
 */
export interface DomainEvent {
  readonly detailType: DomainEventType;
  readonly detail: {
    readonly version: '1';
    readonly eventId: string;
    readonly payoutId: string;
    readonly idempotencyKey: string;
    readonly origin: Payout['origin'];
    readonly type: Payout['instruction']['type'];
    readonly status: Payout['status'];
    readonly amountKobo: number;
    readonly currency: 'NGN';
    readonly sourceRef?: string;
    readonly correlationId?: string;
    readonly traceparent?: string;
    readonly receipt?: Payout['receipt'];
    readonly failure?: Payout['failure'];
    readonly paidTwice?: Payout['paidTwice'];
    readonly occurredAt: string;
  };
}

/**
 * The longest each field of an event may be: EventBridge refuses an entry over 256 KB, so the translation clips
 * every text to these and the largest event is known (test/infra/message-sizes.test.ts). The same maxima bound
 * the ops API's answers (lib/shared/field-limits.ts).
 */
export const DOMAIN_EVENT_MAXIMA = {
  id: FIELD_MAXIMA.id,
  word: FIELD_MAXIMA.word,
  text: FIELD_MAXIMA.message,
  items: FIELD_MAXIMA.items,
} as const;

const { id, word, text, items } = DOMAIN_EVENT_MAXIMA;
const upTo = (max: number) => z.string().check(z.maxLength(max));
const kobo = z.int().check(z.gte(-Number.MAX_SAFE_INTEGER), z.lte(Number.MAX_SAFE_INTEGER));

/** A domain event's `detail` with every maximum: what consumers may rely on, and what the size proof reads. */
export const DomainEventDetailSchema = z.strictObject({
  version: z.literal('1'),
  eventId: upTo(id),
  payoutId: upTo(id),
  idempotencyKey: upTo(id),
  origin: upTo(word),
  type: upTo(word),
  status: upTo(word),
  amountKobo: kobo,
  currency: z.literal('NGN'),
  sourceRef: z.optional(upTo(id)),
  /** What ties the payout's log lines, messages and events together, from its first request (docs/operations.md). */
  correlationId: z.optional(upTo(id)),
  /** The W3C traceparent of the request that created the payout: its trace, which the event continues. */
  traceparent: z.optional(upTo(id)),
  receipt: z.optional(
    z.strictObject({
      transactionId: upTo(id),
      reference: z.optional(upTo(id)),
      sessionId: z.optional(upTo(id)),
      status: upTo(word),
      chargesKobo: kobo,
      paidAt: z.optional(upTo(word)),
    }),
  ),
  failure: z.optional(z.strictObject({ code: upTo(word), message: upTo(text) })),
  paidTwice: z.optional(
    z.strictObject({
      attempts: z.array(kobo).check(z.maxLength(items)),
      transactionIds: z.array(upTo(id)).check(z.maxLength(items)),
    }),
  ),
  occurredAt: upTo(word),
});

const clip = clipText;

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

// ---- Payout run events (docs/payout-runs.md, "Events"): kept in their own block ----

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
      eventId: clip(`run:${run.runId}:ended`, id),
      runId: clip(run.runId, id),
      status: run.state,
      count: run.count,
      counts,
      totalKobo: run.totalKobo,
      sentKobo: run.endedSentKobo ?? 0,
      failedKobo: run.endedFailedKobo ?? 0,
      occurredAt: clip(run.endedAt, word),
    },
  };
}

const RUN_EVENT_TYPES: ReadonlySet<string> = new Set([RUN_COMPLETED_EVENT, RUN_NEEDS_ATTENTION_EVENT]);

/** Whether a published event is a run's end. */
export const isPayoutRunEvent = (event: PublishedEvent): event is PayoutRunEvent =>
  RUN_EVENT_TYPES.has(event.detailType);

// ---- end of payout run events ----

/** Every event this project publishes to its bus. */
export type PublishedEvent = DomainEvent | StatementMismatchEvent | ApprovalEvent | PayoutRunEvent;

/** Whether a published event is a payout's outcome (not a statement's finding, an approval's nor a run's end). */
export const isPayoutEvent = (event: PublishedEvent): event is DomainEvent =>
  event.detailType !== STATEMENT_MISMATCH_EVENT &&
  event.detailType !== APPROVAL_REQUESTED_EVENT &&
  event.detailType !== APPROVAL_DECIDED_EVENT &&
  !RUN_EVENT_TYPES.has(event.detailType);

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
      eventId: clip(`statement:${date}:${line.kind}:${line.key}`, 3 * id),
      date,
      kind: line.kind,
      key: clip(line.key, id),
      ...(line.transactionId !== undefined && { transactionId: clip(line.transactionId, id) }),
      ...(line.payoutId !== undefined && { payoutId: clip(line.payoutId, id) }),
      ...(line.refundId !== undefined && { refundId: clip(line.refundId, id) }),
      amountKobo: line.amountKobo,
      ...(line.expectedAmountKobo !== undefined && { expectedAmountKobo: line.expectedAmountKobo }),
      ...(line.chargesKobo !== undefined && { chargesKobo: line.chargesKobo }),
      ...(line.expectedChargesKobo !== undefined && { expectedChargesKobo: line.expectedChargesKobo }),
      detail: clip(line.detail, text),
      occurredAt: clip(firstSeenAt, word),
    },
  };
}

/**
 * The event a table change publishes, if any: a payout's outcome, a statement's finding, an instruction that
 * began or stopped waiting for a second person, or a run's end.
 */
export function publishedEventOf(record: PayoutStreamRecord): PublishedEvent | undefined {
  return (
    domainEventOf(record) ??
    statementMismatchOf(record) ??
    approvalEventOf(record) ??
    payoutRunEventOf(record)
  );
}

/**
 * The part of a DynamoDB stream record the translation reads. The Lambda event and the Streams API type
 * the images differently, so they are taken as plain objects here.
 */
export interface PayoutStreamRecord {
  readonly eventName?: string;
  readonly dynamodb?: {
    readonly NewImage?: Readonly<Record<string, object>>;
    readonly OldImage?: Readonly<Record<string, object>>;
  };
}

/** DynamoDB JSON to plain values; the payout codec validates the result, so no shape is trusted here. */
function paidTwiceOf(item: Record<string, unknown>): Pick<Payout, 'paidTwice'> | undefined {
  try {
    return fromPayoutItem(item);
  } catch {
    return undefined;
  }
}

function decode(image: Readonly<Record<string, object>>): Record<string, unknown> {
  return unmarshall(image as Record<string, AttributeValue>);
}

/**
 * Translates one table change into the domain event it stands for, if any. The state change and its
 * audit event were committed in one transaction; the stream carries every committed change exactly once
 * per record, so publishing from it can neither invent nor lose an outcome.
 */
export function domainEventOf(record: PayoutStreamRecord): DomainEvent | undefined {
  const image = record.dynamodb?.NewImage;
  if (!image || (record.eventName !== 'MODIFY' && record.eventName !== 'INSERT')) return undefined;
  const item = decode(image);
  if (item.entity !== 'payout') return undefined;
  const old = record.dynamodb?.OldImage ? decode(record.dynamodb.OldImage) : undefined;
  const payout = fromPayoutItem(item);
  if (old?.status === payout.status) return undefined;
  // `paidTwice` stays on a payout once set: only the change that found the double publishes it as one. An old
  // image that no longer reads as a payout counts as none: the double is published (an alarm too many, never one
  // too few).
  const before = old?.entity === 'payout' ? paidTwiceOf(old) : undefined;
  const detailType =
    payout.status === PayoutStatus.NeedsReview && newlyPaidTwice(before, payout)
      ? PAID_TWICE_EVENT
      : (PUBLISHED_OUTCOMES as Partial<Record<PayoutStatus, DomainEventType>>)[payout.status];
  if (!detailType) return undefined;
  const { receipt, failure, paidTwice } = payout;
  return {
    detailType,
    detail: {
      version: '1',
      eventId: clip(`${payout.id}:${payout.version}`, id),
      payoutId: clip(payout.id, id),
      idempotencyKey: clip(payout.idempotencyKey, id),
      origin: payout.origin,
      type: payout.instruction.type,
      status: payout.status,
      amountKobo: payout.amountKobo,
      currency: payout.currency,
      ...(payout.sourceRef && { sourceRef: clip(payout.sourceRef, id) }),
      ...(payout.correlationId && { correlationId: clip(payout.correlationId, id) }),
      ...(payout.traceparent && { traceparent: clip(payout.traceparent, id) }),
      ...(receipt && {
        receipt: {
          transactionId: clip(receipt.transactionId, id),
          status: clip(receipt.status, word),
          chargesKobo: receipt.chargesKobo,
          ...(receipt.paidAt !== undefined && { paidAt: clip(receipt.paidAt, word) }),
          ...(receipt.reference !== undefined && { reference: clip(receipt.reference, id) }),
          ...(receipt.sessionId !== undefined && { sessionId: clip(receipt.sessionId, id) }),
        },
      }),
      ...(failure && { failure: { code: clip(failure.code, word), message: clip(failure.message, text) } }),
      ...(paidTwice && {
        paidTwice: {
          attempts: paidTwice.attempts.slice(0, items),
          transactionIds: paidTwice.transactionIds.slice(0, items).map((one) => clip(one, id)),
        },
      }),
      occurredAt: payout.updatedAt,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Approval events: an instruction waits for a second person, and what that person (or a withdrawal) decided.
// Kept in a block of their own: the notifier (lib/notifications) turns them into messages for the approvers.
// ---------------------------------------------------------------------------------------------------------------

/** Published when a money instruction enters `pending_approval`. */
export const APPROVAL_REQUESTED_EVENT = 'Approval Requested';
/** Published when it leaves `pending_approval`: approved, or withdrawn/rejected before anything was sent. */
export const APPROVAL_DECIDED_EVENT = 'Approval Decided';

/**
 * The kinds of instruction that can wait, by the table item that holds each (its `entity`). A settlement's payout
 * waits as a payout (origin `settlement`), and a correction job's row waits through its held correction
 * (`bulk-correction`), which is what the approver approves: neither publishes twice.
 */
export const APPROVAL_EVENT_KINDS = {
  payout: 'payout',
  refund: 'refund',
  recurrence: 'recurring-payout',
  'payout-run': 'payout-run',
  'bulk-item-correction': 'bulk-correction',
} as const;
export type ApprovalEventKind = (typeof APPROVAL_EVENT_KINDS)[keyof typeof APPROVAL_EVENT_KINDS];
/** The entities whose entering or leaving `pending_approval` publishes (the stream filter of infra). */
export const APPROVAL_ENTITIES = Object.keys(APPROVAL_EVENT_KINDS);
const APPROVAL_KIND_VALUES = Object.values(APPROVAL_EVENT_KINDS) as [
  ApprovalEventKind,
  ...ApprovalEventKind[],
];
const PENDING_APPROVAL = 'pending_approval';

const PrincipalDetailSchema = z.strictObject({ id: upTo(id), kind: upTo(word) });

/** Where the approver acts: the API path of the instruction and the CLI command that approves it. */
const ApprovalLinkSchema = z.strictObject({ path: upTo(3 * id), approveCommand: upTo(3 * id) });

/** What both approval events carry: the instruction, its amount, who asked and where to act. */
const approvalDetailShape = {
  version: z.literal('1'),
  eventId: upTo(3 * id),
  kind: z.enum(APPROVAL_KIND_VALUES),
  id: upTo(id),
  /** Kobo; a run's total. Absent when the instruction names no amount (a correction of a destination). */
  amountKobo: z.optional(kobo),
  currency: z.literal('NGN'),
  requestedBy: PrincipalDetailSchema,
  link: ApprovalLinkSchema,
  occurredAt: upTo(word),
};

/** The first of two approvals as an event names it: who and when. */
const FirstApprovalDetailSchema = z.strictObject({ by: PrincipalDetailSchema, at: upTo(word) });

/** The `detail` of an `Approval Requested`, with every maximum (test/infra/message-sizes.test.ts). */
export const ApprovalRequestedDetailSchema = z.strictObject({
  ...approvalDetailShape,
  /**
   * `approval:<kind>:<id>:requested` when it enters `pending_approval` (once per instruction), and
   * `approval:<kind>:<id>:requested-second` when its first of two approvals is recorded (once too).
   */
  eventId: upTo(3 * id),
  /**
   * Which approval it waits for: `first` (any approver but its requester), or `second` (the second-approval
   * threshold: any approver but its requester and its first approver). Absent reads as `first` (version 1).
   */
  stage: z.optional(z.enum(['first', 'second'])),
  /** At the `second` stage: who approved first and when (that person cannot approve again). */
  firstApproval: z.optional(FirstApprovalDetailSchema),
});

/** The `detail` of an `Approval Decided`, with every maximum (test/infra/message-sizes.test.ts). */
export const ApprovalDecidedDetailSchema = z.strictObject({
  ...approvalDetailShape,
  /** `approval:<kind>:<id>:decided`: one per instruction (it leaves `pending_approval` once). */
  eventId: upTo(3 * id),
  decision: z.enum(['approved', 'cancelled', 'rejected']),
  /** Who approved, rejected or withdrew it, when the instruction records who (a payout's or refund's cancel does not). */
  decidedBy: z.optional(PrincipalDetailSchema),
  /**
   * The first of two approvals, when the instruction needed two (the second-approval threshold): who and when.
   * `decidedBy` is then the second approver, or whoever rejected or withdrew it after the first approval.
   */
  firstApproval: z.optional(FirstApprovalDetailSchema),
});

export type ApprovalRequestedDetail = z.output<typeof ApprovalRequestedDetailSchema>;
export type ApprovalDecidedDetail = z.output<typeof ApprovalDecidedDetailSchema>;
export type ApprovalEvent =
  | { readonly detailType: typeof APPROVAL_REQUESTED_EVENT; readonly detail: ApprovalRequestedDetail }
  | { readonly detailType: typeof APPROVAL_DECIDED_EVENT; readonly detail: ApprovalDecidedDetail };

const StoredPrincipal = z.object({ id: z.string(), kind: z.string() });
/** The fields of any waiting item the translation reads; each entity names them its own way. */
const ApprovalItemSchema = z.object({
  entity: z.enum(APPROVAL_ENTITIES as [string, ...string[]]),
  status: z.optional(z.string()),
  state: z.optional(z.string()),
  id: z.optional(z.string()),
  runId: z.optional(z.string()),
  correctionId: z.optional(z.string()),
  bulkPayoutItemId: z.optional(z.string()),
  amountKobo: z.optional(z.int()),
  totalKobo: z.optional(z.int()),
  template: z.optional(z.object({ amount: z.optional(z.int()) })),
  fields: z.optional(z.record(z.string(), z.unknown())),
  requestedBy: z.optional(StoredPrincipal),
  createdBy: z.optional(StoredPrincipal),
  approvedBy: z.optional(StoredPrincipal),
  /** The first of two approvals (the second-approval threshold). */
  firstApproval: z.optional(z.object({ actor: StoredPrincipal, at: z.string() })),
  cancelledBy: z.optional(StoredPrincipal),
  /** A second person's refusal: the instruction ends `cancelled`, and the decision is `rejected`. */
  rejection: z.optional(z.object({ actor: StoredPrincipal, at: z.string() })),
  updatedAt: z.optional(z.string()),
  createdAt: z.optional(z.string()),
  requestedAt: z.optional(z.string()),
  approvedAt: z.optional(z.string()),
  cancelledAt: z.optional(z.string()),
});
type ApprovalItem = z.output<typeof ApprovalItemSchema>;

const statusOf = (item: ApprovalItem): string | undefined => item.status ?? item.state;

/** A waiting item's fields; a payout's item is stored in short names (its codec reads them), the others as written. */
function approvalItemOf(image: Readonly<Record<string, object>>): ApprovalItem | undefined {
  const raw = decode(image);
  if (raw.entity === 'payout') {
    let payout: Payout;
    try {
      payout = fromPayoutItem(raw);
    } catch {
      return undefined;
    }
    return {
      entity: 'payout',
      status: payout.status,
      id: payout.id,
      amountKobo: payout.amountKobo,
      requestedBy: payout.requestedBy,
      ...(payout.approvedBy && { approvedBy: payout.approvedBy }),
      ...(payout.firstApproval && { firstApproval: payout.firstApproval }),
      ...(payout.rejection && { rejection: payout.rejection }),
      createdAt: payout.createdAt,
      updatedAt: payout.updatedAt,
    };
  }
  const parsed = ApprovalItemSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** The instruction's id, path and approve command, as the ops API and the CLI (lib/cli/command-table.ts) name them. */
function whereOf(
  kind: ApprovalEventKind,
  item: ApprovalItem,
): { id: string; path: string; approveCommand: string } {
  const cli = 'npx payouts';
  switch (kind) {
    case 'payout':
      return {
        id: item.id ?? '',
        path: `/payouts/${item.id}`,
        approveCommand: `${cli} payouts approve ${item.id}`,
      };
    case 'refund':
      return {
        id: item.id ?? '',
        path: `/refunds/${item.id}`,
        approveCommand: `${cli} refunds approve ${item.id}`,
      };
    case 'recurring-payout':
      return {
        id: item.id ?? '',
        path: `/recurring-payouts/${item.id}`,
        approveCommand: `${cli} recurring approve ${item.id}`,
      };
    case 'payout-run':
      return {
        id: item.runId ?? '',
        path: `/payout-runs/${item.runId}`,
        approveCommand: `${cli} payout-runs approve ${item.runId}`,
      };
    case 'bulk-correction':
      return {
        id: item.correctionId ?? '',
        path: `/bulk-payout-items/${item.bulkPayoutItemId}`,
        approveCommand: `${cli} bulk approve ${item.bulkPayoutItemId} ${item.correctionId}`,
      };
  }
}

function amountOf(kind: ApprovalEventKind, item: ApprovalItem): number | undefined {
  if (kind === 'payout-run') return item.totalKobo;
  if (kind === 'recurring-payout') return item.template?.amount;
  if (kind === 'bulk-correction')
    return typeof item.fields?.amount === 'number' ? item.fields.amount : undefined;
  return item.amountKobo;
}

const principal = (p: { id: string; kind: string }) => ({ id: clip(p.id, id), kind: clip(p.kind, word) });

/**
 * A table change that made an instruction wait for a second person (`Approval Requested`), or ended its wait
 * (`Approval Decided`). A change of status into or out of `pending_approval` publishes, and so does the first of
 * two approvals (the second-approval threshold), which leaves it waiting for another approver (`Approval
 * Requested`, stage `second`, naming the first approver); the event id names the instruction and the transition,
 * so a redelivered record or event is dropped by it.
 */
export function approvalEventOf(record: PayoutStreamRecord): ApprovalEvent | undefined {
  const image = record.dynamodb?.NewImage;
  if (!image || (record.eventName !== 'MODIFY' && record.eventName !== 'INSERT')) return undefined;
  const item = approvalItemOf(image);
  if (!item) return undefined;
  const oldImage = record.dynamodb?.OldImage;
  const old = oldImage ? approvalItemOf(oldImage) : undefined;
  const before = old ? statusOf(old) : undefined;
  const after = statusOf(item);
  // Still waiting, but its first of two approvals was just recorded: now it waits for a second person.
  const secondWait =
    before === PENDING_APPROVAL &&
    after === PENDING_APPROVAL &&
    item.firstApproval !== undefined &&
    old?.firstApproval === undefined;
  if (before === after && !secondWait) return undefined;
  const kind = APPROVAL_EVENT_KINDS[item.entity as keyof typeof APPROVAL_EVENT_KINDS];
  const requester = item.requestedBy ?? item.createdBy;
  if (!requester) return undefined;
  const where = whereOf(kind, item);
  const amountKobo = amountOf(kind, item);
  const base = {
    version: '1' as const,
    kind,
    id: clip(where.id, id),
    ...(amountKobo !== undefined && { amountKobo }),
    currency: 'NGN' as const,
    requestedBy: principal(requester),
    link: { path: clip(where.path, 3 * id), approveCommand: clip(where.approveCommand, 3 * id) },
  };
  if (secondWait && item.firstApproval) {
    return {
      detailType: APPROVAL_REQUESTED_EVENT,
      detail: {
        ...base,
        eventId: clip(`approval:${kind}:${where.id}:requested-second`, 3 * id),
        stage: 'second',
        firstApproval: { by: principal(item.firstApproval.actor), at: clip(item.firstApproval.at, word) },
        occurredAt: clip(item.firstApproval.at, word),
      },
    };
  }
  if (after === PENDING_APPROVAL) {
    return {
      detailType: APPROVAL_REQUESTED_EVENT,
      detail: {
        ...base,
        eventId: clip(`approval:${kind}:${where.id}:requested`, 3 * id),
        stage: 'first',
        occurredAt: clip(item.requestedAt ?? item.updatedAt ?? item.createdAt ?? '', word),
      },
    };
  }
  if (before !== PENDING_APPROVAL) return undefined;
  const decision = item.rejection ? 'rejected' : decisionOf(after, item.approvedBy !== undefined);
  const decidedBy = {
    approved: item.approvedBy,
    rejected: item.rejection?.actor,
    cancelled: item.cancelledBy,
  }[decision];
  const decidedAt = { approved: item.approvedAt, rejected: item.rejection?.at, cancelled: item.cancelledAt }[
    decision
  ];
  return {
    detailType: APPROVAL_DECIDED_EVENT,
    detail: {
      ...base,
      eventId: clip(`approval:${kind}:${where.id}:decided`, 3 * id),
      decision,
      ...(decidedBy && { decidedBy: principal(decidedBy) }),
      ...(item.firstApproval && {
        firstApproval: { by: principal(item.firstApproval.actor), at: clip(item.firstApproval.at, word) },
      }),
      occurredAt: clip(decidedAt ?? item.updatedAt ?? '', word),
    },
  };
}

/**
 * Leaving `pending_approval` for `cancelled` is a withdrawal; with an approver recorded it is an approval (a refund
 * approved and then refused by the cap in the same write was still approved); `rejected` without one a refusal.
 */
function decisionOf(status: string | undefined, approved: boolean): ApprovalDecidedDetail['decision'] {
  if (status === 'cancelled') return 'cancelled';
  if (approved) return 'approved';
  return status === 'rejected' ? 'rejected' : 'approved';
}
