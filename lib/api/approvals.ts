import type { BulkCorrectionService } from '../bulk-corrections/index.js';
import type { Approval, Principal } from '../controls/index.js';
import { sameIdentity } from '../controls/index.js';
import type { PayoutRun, RunState } from '../payout-runs/index.js';
import type { PayoutListing } from '../payouts/index.js';
import type { RecurrenceService } from '../recurrence/index.js';
import type { RefundService } from '../refunds/index.js';
import type { CursorPage } from '../shared/paging.js';

/** The kinds of money instruction that wait for a second person. */
export const APPROVAL_KINDS = [
  'payout',
  'refund',
  'bulk-correction',
  'recurring-payout',
  'payout-run',
] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/** One instruction waiting for a second person, and the call that approves it. */
export interface WaitingApproval {
  readonly kind: ApprovalKind;
  readonly id: string;
  /** Kobo, when the instruction has an amount. */
  readonly amount?: number;
  readonly requestedBy: Principal;
  readonly requestedAt: string;
  /** Its first of two approvals, when it needs two (the second-approval threshold): it waits for a second. */
  readonly firstApproval?: Approval;
  /** What the instruction does, for the approver to read. */
  readonly summary: string;
  readonly approve: { readonly method: 'POST'; readonly path: string };
  /** The call that rejects it, with a reason (a held bulk correction is withdrawn with its cancel instead). */
  readonly reject?: { readonly method: 'POST'; readonly path: string };
}

/** The approve and reject calls of the instruction at `path`. */
const decisionsOn = (path: string) =>
  ({
    approve: { method: 'POST', path: `${path}/approve` },
    reject: { method: 'POST', path: `${path}/reject` },
  }) as const;

export interface ApprovalsPage {
  readonly items: WaitingApproval[];
  /** Per kind, the cursor of its next page (`?kind=<kind>&cursor=…`). */
  readonly nextCursors: Partial<Record<ApprovalKind, string>>;
}

/**
 * Where each kind of instruction waiting for a second person is listed. Listing is all the queue does, so the
 * stores answer for the services (lib/api/approval-sources.ts): the function serving it carries no provider code.
 */
export interface ApprovalSources {
  readonly payouts: Pick<PayoutListing, 'list'>;
  readonly refunds: Pick<RefundService, 'list'>;
  readonly recurrences: Pick<RecurrenceService, 'list'>;
  readonly bulkCorrections: Pick<BulkCorrectionService, 'listCorrections'>;
  readonly payoutRuns: {
    list(query: { limit: number; cursor?: string; state?: RunState }): Promise<CursorPage<PayoutRun>>;
  };
}

type Source = (limit: number, cursor: string | undefined) => Promise<CursorPage<WaitingApproval>>;

/** A listing's page as the queue shows it: each item presented, the listing's own cursor kept. */
const waitingOf = <T>(
  page: CursorPage<T>,
  present: (item: T) => WaitingApproval,
): CursorPage<WaitingApproval> => ({
  items: page.items.map(present),
  ...(page.nextCursor && { nextCursor: page.nextCursor }),
});

function sources(ctx: ApprovalSources): Record<ApprovalKind, Source> {
  return {
    payout: async (limit, cursor) => {
      return waitingOf(
        await ctx.payouts.list({ status: 'pending_approval', limit, ...(cursor && { cursor }) }),
        (payout) => ({
          kind: 'payout',
          id: payout.id,
          amount: payout.amountKobo,
          requestedBy: payout.requestedBy,
          requestedAt: payout.createdAt,
          ...(payout.firstApproval && { firstApproval: payout.firstApproval }),
          summary: `${payout.instruction.type}: ${payout.narration}`,
          ...decisionsOn(`/payouts/${payout.id}`),
        }),
      );
    },
    refund: async (limit, cursor) => {
      return waitingOf(
        await ctx.refunds.list({ status: 'pending_approval', limit, ...(cursor && { cursor }) }),
        (refund) => ({
          kind: 'refund',
          id: refund.id,
          amount: refund.amountKobo,
          requestedBy: refund.requestedBy,
          requestedAt: refund.createdAt,
          ...(refund.firstApproval && { firstApproval: refund.firstApproval }),
          summary: `refund of transaction ${refund.transactionId}: ${refund.merchantNote}`,
          ...decisionsOn(`/refunds/${refund.id}`),
        }),
      );
    },
    'recurring-payout': async (limit, cursor) => {
      return waitingOf(
        await ctx.recurrences.list({
          status: 'pending_approval',
          limit,
          ...(cursor && { cursor }),
        }),
        (recurrence) => ({
          kind: 'recurring-payout',
          id: recurrence.id,
          amount: recurrence.template.amount,
          requestedBy: recurrence.createdBy,
          requestedAt: recurrence.createdAt,
          ...(recurrence.firstApproval && { firstApproval: recurrence.firstApproval }),
          summary: `${recurrence.rule.interval} ${recurrence.template.type} from ${recurrence.rule.startDate}: ${recurrence.template.narration}`,
          ...decisionsOn(`/recurring-payouts/${recurrence.id}`),
        }),
      );
    },
    'bulk-correction': async (limit, cursor) => {
      return waitingOf(
        await ctx.bulkCorrections.listCorrections({
          status: 'pending_approval',
          limit,
          ...(cursor && { cursor }),
        }),
        (correction) => ({
          kind: 'bulk-correction',
          id: correction.correctionId,
          ...(typeof correction.fields.amount === 'number' && { amount: correction.fields.amount }),
          requestedBy: correction.requestedBy,
          requestedAt: correction.requestedAt,
          ...(correction.firstApproval && { firstApproval: correction.firstApproval }),
          summary: `bulk item ${correction.bulkPayoutItemId}: ${correction.changes
            .map((change) => `${change.field} ${change.from ?? '?'} -> ${change.to}`)
            .join(', ')} (${correction.reason})`,
          approve: {
            method: 'POST',
            path: `/bulk-payout-items/${correction.bulkPayoutItemId}/corrections/${correction.correctionId}/approve`,
          },
        }),
      );
    },
    'payout-run': async (limit, cursor) => {
      return waitingOf(
        await ctx.payoutRuns.list({ state: 'pending_approval', limit, ...(cursor && { cursor }) }),
        (run) => ({
          kind: 'payout-run',
          id: run.runId,
          amount: run.totalKobo,
          requestedBy: run.requestedBy,
          requestedAt: run.createdAt,
          ...(run.firstApproval && { firstApproval: run.firstApproval }),
          summary: `payout run of ${run.count} bank transfers from a ${run.source} file (sha256 ${run.fileSha256})`,
          ...decisionsOn(`/payout-runs/${run.runId}`),
        }),
      );
    },
  };
}

/**
 * The approvals queue: money instructions waiting for a second person that `viewer` may approve, that is, all
 * but those `viewer` asked for or gave the first of two approvals to (by stable identity); one that needs a second
 * approval carries its `firstApproval`. One page of each kind (or of `kind` alone), newest first;
 * a page may hold fewer than `limit` items when some were the viewer's own.
 */
export async function waitingApprovals(
  ctx: ApprovalSources,
  viewer: Principal,
  query: { kind?: ApprovalKind; limit: number; cursor?: string },
): Promise<ApprovalsPage> {
  const all = sources(ctx);
  const kinds = query.kind ? [query.kind] : APPROVAL_KINDS;
  const pages = await Promise.all(
    kinds.map(async (kind) => [kind, await all[kind](query.limit, query.cursor)] as const),
  );
  const items = pages
    .flatMap(([, page]) => page.items)
    .filter(
      (item) =>
        !sameIdentity(item.requestedBy, viewer) &&
        !(item.firstApproval && sameIdentity(item.firstApproval.actor, viewer)),
    )
    .sort((a, b) => b.requestedAt.localeCompare(a.requestedAt));
  const nextCursors: Partial<Record<ApprovalKind, string>> = {};
  for (const [kind, page] of pages) if (page.nextCursor) nextCursors[kind] = page.nextCursor;
  return { items, nextCursors };
}
