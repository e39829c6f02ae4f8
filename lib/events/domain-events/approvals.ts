import { fromPayoutItem, type Payout } from '../../payouts/index.js';
import { clipText } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { DOMAIN_EVENT_MAXIMA, kobo, upTo } from './event-fields.js';
import { decode, type PayoutStreamRecord } from './stream-record.js';

const { id, word } = DOMAIN_EVENT_MAXIMA;

// Approval events: an instruction waits for a second person, and what that person (or a withdrawal) decided.
// The notifier (lib/notifications) turns them into messages for the approvers.

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

const principal = (p: { id: string; kind: string }) => ({
  id: clipText(p.id, id),
  kind: clipText(p.kind, word),
});

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
    id: clipText(where.id, id),
    ...(amountKobo !== undefined && { amountKobo }),
    currency: 'NGN' as const,
    requestedBy: principal(requester),
    link: { path: clipText(where.path, 3 * id), approveCommand: clipText(where.approveCommand, 3 * id) },
  };
  if (secondWait && item.firstApproval) {
    return {
      detailType: APPROVAL_REQUESTED_EVENT,
      detail: {
        ...base,
        eventId: clipText(`approval:${kind}:${where.id}:requested-second`, 3 * id),
        stage: 'second',
        firstApproval: { by: principal(item.firstApproval.actor), at: clipText(item.firstApproval.at, word) },
        occurredAt: clipText(item.firstApproval.at, word),
      },
    };
  }
  if (after === PENDING_APPROVAL) {
    return {
      detailType: APPROVAL_REQUESTED_EVENT,
      detail: {
        ...base,
        eventId: clipText(`approval:${kind}:${where.id}:requested`, 3 * id),
        stage: 'first',
        occurredAt: clipText(item.requestedAt ?? item.updatedAt ?? item.createdAt ?? '', word),
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
      eventId: clipText(`approval:${kind}:${where.id}:decided`, 3 * id),
      decision,
      ...(decidedBy && { decidedBy: principal(decidedBy) }),
      ...(item.firstApproval && {
        firstApproval: { by: principal(item.firstApproval.actor), at: clipText(item.firstApproval.at, word) },
      }),
      occurredAt: clipText(decidedAt ?? item.updatedAt ?? '', word),
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
