import {
  APPROVAL_DECIDED_EVENT,
  APPROVAL_REQUESTED_EVENT,
  ApprovalDecidedDetailSchema,
  ApprovalRequestedDetailSchema,
  PAID_TWICE_EVENT,
  PUBLISHED_OUTCOMES,
  STATEMENT_MISMATCH_EVENT,
} from '../events/index.js';
import { formatNaira } from '../money.js';
import * as z from '../shared/zod.js';

/** The detail types the notifier turns into a message for people (the EventBridge rule's pattern). */
export const NOTIFIED_EVENTS = [
  APPROVAL_REQUESTED_EVENT,
  APPROVAL_DECIDED_EVENT,
  PUBLISHED_OUTCOMES.needs_review,
  PAID_TWICE_EVENT,
  STATEMENT_MISMATCH_EVENT,
] as const;
export type NotifiedEvent = (typeof NOTIFIED_EVENTS)[number];

/**
 * One message for people, built from named fields of an event only: never a narration, a provider's text, a
 * beneficiary or a secret. Every digit run long enough to be an account number is cut to its last 4 on top
 * (`maskAccountNumbers`), in case an id ever carries one.
 */
export interface Notification {
  /** The event's id: one notification per event, however often it is delivered. */
  readonly eventId: string;
  readonly detailType: NotifiedEvent;
  /** One line, for an email's subject (SNS allows 100 characters). */
  readonly subject: string;
  /** The message: what waits or happened, the amount in naira, who asked, where to act. */
  readonly text: string;
  /** The same, as fields a Slack or Teams workflow maps to its message. */
  readonly fields: Readonly<Record<string, string>>;
}

const NeedsReviewSchema = z.object({
  eventId: z.string(),
  payoutId: z.string(),
  amountKobo: z.int(),
  failure: z.optional(z.object({ code: z.string() })),
});
const PaidTwiceSchema = z.object({
  eventId: z.string(),
  payoutId: z.string(),
  amountKobo: z.int(),
  paidTwice: z.optional(z.object({ transactionIds: z.array(z.string()) })),
});
const MismatchSchema = z.object({
  eventId: z.string(),
  date: z.string(),
  kind: z.string(),
  amountKobo: z.int(),
  payoutId: z.optional(z.string()),
});

const KIND_NAMES: Readonly<Record<string, string>> = {
  payout: 'Payout',
  refund: 'Refund',
  'recurring-payout': 'Recurring payout',
  'bulk-correction': 'Bulk payout correction',
  'payout-run': 'Payout run',
};

/**
 * Digit runs of 6 or more that stand alone (account numbers are 10) shown as their last 4: `******6789`. A run
 * inside an identifier (a ULID's `01KJPRZB007101KM…`, a UUID's `-000000000003`) is part of that id, not an
 * account number: masking it broke the notification's link and approve command.
 */
export function maskAccountNumbers(text: string): string {
  return text.replace(
    /(?<![0-9A-Za-z-])\d{6,}(?![0-9A-Za-z-])/g,
    (digits) => `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`,
  );
}

const oneLine = (text: string, max: number) => text.replace(/[\r\n]+/g, ' ').slice(0, max);

function build(
  eventId: string,
  detailType: NotifiedEvent,
  subject: string,
  fields: Record<string, string>,
): Notification {
  const masked = Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [key, maskAccountNumbers(value)]),
  );
  const text = Object.entries(masked)
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n');
  return { eventId, detailType, subject: oneLine(maskAccountNumbers(subject), 100), text, fields: masked };
}

/** The notification an event stands for, or undefined for an event it does not know (nothing is sent). */
export function notificationOf(detailType: string, detail: unknown): Notification | undefined {
  switch (detailType) {
    case APPROVAL_REQUESTED_EVENT: {
      const parsed = ApprovalRequestedDetailSchema.safeParse(detail);
      if (!parsed.success) return undefined;
      const d = parsed.data;
      const what = KIND_NAMES[d.kind] ?? d.kind;
      const amount =
        d.amountKobo === undefined ? 'no amount (a change of destination)' : formatNaira(d.amountKobo);
      // At the second of two approvals it waits for a person other than its requester and its first approver.
      const second = d.stage === 'second' && d.firstApproval !== undefined;
      const subject = second
        ? `Second approval needed: ${what} ${amount}`
        : `Approval needed: ${what} ${amount}`;
      return build(d.eventId, APPROVAL_REQUESTED_EVENT, subject, {
        event: APPROVAL_REQUESTED_EVENT,
        instruction: `${what} ${d.id}`,
        amount,
        requestedBy: d.requestedBy.id,
        ...(second &&
          d.firstApproval && { firstApprovedBy: d.firstApproval.by.id, waitsFor: 'a second approver' }),
        link: d.link.path,
        approve: d.link.approveCommand,
        at: d.occurredAt,
      });
    }
    case APPROVAL_DECIDED_EVENT: {
      const parsed = ApprovalDecidedDetailSchema.safeParse(detail);
      if (!parsed.success) return undefined;
      const d = parsed.data;
      const what = KIND_NAMES[d.kind] ?? d.kind;
      const amount = d.amountKobo === undefined ? 'no amount' : formatNaira(d.amountKobo);
      const by = d.decidedBy?.id ?? 'not recorded';
      return build(d.eventId, APPROVAL_DECIDED_EVENT, `${what} ${d.decision} by ${by}: ${amount}`, {
        event: APPROVAL_DECIDED_EVENT,
        instruction: `${what} ${d.id}`,
        amount,
        decision: d.decision,
        decidedBy: by,
        ...(d.firstApproval && { firstApprovedBy: d.firstApproval.by.id }),
        requestedBy: d.requestedBy.id,
        link: d.link.path,
        at: d.occurredAt,
      });
    }
    case PUBLISHED_OUTCOMES.needs_review: {
      const parsed = NeedsReviewSchema.safeParse(detail);
      if (!parsed.success) return undefined;
      const d = parsed.data;
      return build(
        d.eventId,
        PUBLISHED_OUTCOMES.needs_review,
        `Payout needs review: ${formatNaira(d.amountKobo)}`,
        {
          event: PUBLISHED_OUTCOMES.needs_review,
          instruction: `Payout ${d.payoutId}`,
          amount: formatNaira(d.amountKobo),
          ...(d.failure && { reason: d.failure.code }),
          link: `/payouts/${d.payoutId}`,
        },
      );
    }
    case PAID_TWICE_EVENT: {
      const parsed = PaidTwiceSchema.safeParse(detail);
      if (!parsed.success) return undefined;
      const d = parsed.data;
      return build(d.eventId, PAID_TWICE_EVENT, `Payout paid twice: ${formatNaira(d.amountKobo)}`, {
        event: PAID_TWICE_EVENT,
        instruction: `Payout ${d.payoutId}`,
        amount: formatNaira(d.amountKobo),
        transactions: String(d.paidTwice?.transactionIds.length ?? 0),
        link: `/payouts/${d.payoutId}`,
      });
    }
    case STATEMENT_MISMATCH_EVENT: {
      const parsed = MismatchSchema.safeParse(detail);
      if (!parsed.success) return undefined;
      const d = parsed.data;
      return build(d.eventId, STATEMENT_MISMATCH_EVENT, `Statement mismatch ${d.date}: ${d.kind}`, {
        event: STATEMENT_MISMATCH_EVENT,
        finding: d.kind,
        amount: formatNaira(d.amountKobo),
        ...(d.payoutId && { payout: d.payoutId }),
        link: `/statements/${d.date}`,
      });
    }
    default:
      return undefined;
  }
}
