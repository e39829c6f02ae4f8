import { confirmAction, problemText } from '../dialog.js';
import { h, notice, replace, table } from '../dom.js';
import { age, maskedAccount, naira, personName, timeIn } from '../format.js';
import { isMe, type Page, type PageContext, type Principal } from '../page.js';

interface Waiting {
  readonly kind: string;
  readonly id: string;
  readonly amount?: number;
  readonly requestedBy: Principal;
  readonly requestedAt: string;
  readonly summary: string;
  readonly firstApproval?: { by: Principal };
  readonly approve: { method: string; path: string };
  readonly reject?: { method: string; path: string };
}

/** How each kind is named. */
const KINDS: Record<string, { label: string }> = {
  payout: { label: 'Payout' },
  refund: { label: 'Refund' },
  'recurring-payout': { label: 'Recurring rule' },
  'bulk-correction': { label: 'Bulk correction' },
  'payout-run': { label: 'Payout run' },
};

/** The instruction's own view, read for the confirmation: its approve call's resource (a correction's item). */
const detailPathOf = (item: Waiting) =>
  item.approve.path.replace(/\/approve$/, '').replace(/\/corrections\/[^/]+$/, '');

type Detail = Record<string, unknown> & {
  beneficiary?: { accountName?: string; accountNumber?: string; bankCode?: string };
  narration?: string;
};

/** What the approver is shown before deciding: exactly what they approve. */
function factsOf(ctx: PageContext, item: Waiting, detail: Detail): [string, Node | string][] {
  const facts: [string, Node | string][] = [
    ['What', `${KINDS[item.kind]?.label ?? item.kind}: ${item.summary}`],
    ['Amount', item.amount === undefined ? 'not fixed' : naira(item.amount)],
  ];
  const beneficiary = detail.beneficiary ?? (detail.request as Detail | undefined)?.beneficiary;
  if (beneficiary?.accountName) {
    facts.push([
      'Beneficiary',
      `${beneficiary.accountName}, ${maskedAccount(beneficiary.accountNumber)}${beneficiary.bankCode ? ` (bank ${beneficiary.bankCode})` : ''}`,
    ]);
  }
  if (typeof detail.count === 'number') facts.push(['Rows', String(detail.count)]);
  if (typeof detail.fileSha256 === 'string') facts.push(['File SHA-256', detail.fileSha256]);
  if (typeof detail.transactionId === 'string') facts.push(['Transaction', detail.transactionId]);
  facts.push(['Requested by', personName(item.requestedBy.id)]);
  facts.push(['Requested', timeIn(ctx.config.timeZone, item.requestedAt)]);
  if (item.firstApproval) facts.push(['First approval', personName(item.firstApproval.by.id)]);
  return facts;
}

async function decide(ctx: PageContext, item: Waiting, how: 'approve' | 'reject', status: HTMLElement) {
  let detail: Detail = {};
  try {
    detail = await ctx.api.call<Detail>('GET', detailPathOf(item));
  } catch (error) {
    replace(status, notice('error', problemText(error)));
    return;
  }
  const call = how === 'approve' ? item.approve : item.reject;
  if (!call) return;
  confirmAction({
    title: how === 'approve' ? 'Approve this instruction?' : 'Reject this instruction?',
    facts: factsOf(ctx, item, detail),
    confirmLabel:
      how === 'approve' ? `Approve ${item.amount === undefined ? '' : naira(item.amount)}`.trim() : 'Reject',
    danger: how === 'reject',
    ...(how === 'reject' && { reason: { label: 'Reason for rejecting', required: true } }),
    act: async (reason) => {
      const answer = await ctx.api.call(call.method, call.path, { json: reason ? { reason } : {} });
      const now =
        typeof answer.status === 'string' ? ` It is now ${answer.status.replaceAll('_', ' ')}.` : '';
      return `${how === 'approve' ? 'Approved' : 'Rejected'} ${KINDS[item.kind]?.label.toLowerCase() ?? item.kind} ${item.id}.${now}`;
    },
    done: ctx.reloadWith,
  });
}

/** My own requests still waiting: shown, and said not to be mine to approve. */
async function myWaiting(ctx: PageContext) {
  const [payouts, runs] = await Promise.all([
    ctx.api.call<{ items: Record<string, unknown>[] }>('GET', '/payouts', {
      query: { status: 'pending_approval', limit: '100' },
    }),
    ctx.api.call<{ items: Record<string, unknown>[] }>('GET', '/payout-runs', {
      query: { state: 'pending_approval', limit: '100' },
    }),
  ]);
  const mine = (items: Record<string, unknown>[]) =>
    items.filter((item) => isMe(ctx, (item.requestedBy as Principal | undefined)?.id));
  return [
    ...mine(payouts.items).map((p) => ({
      kind: 'Payout',
      id: String(p.id),
      href: `#/payouts/${String(p.id)}`,
      amount: Number(p.amount),
      summary: String(p.narration ?? ''),
      at: String(p.createdAt),
    })),
    ...mine(runs.items).map((r) => ({
      kind: 'Payout run',
      id: String(r.runId),
      href: `#/runs/${String(r.runId)}`,
      amount: Number(r.totalKobo),
      summary: `${String(r.count)} rows`,
      at: String(r.createdAt),
    })),
  ];
}

export const queuePage: Page = async (ctx, main) => {
  const status = h('div', { class: 'status-region' });
  const [waiting, mine] = await Promise.all([
    ctx.api.call<{ items: Waiting[] }>('GET', '/approvals', { query: { limit: '100' } }),
    myWaiting(ctx),
  ]);
  const mayApprove = ctx.roles.has('approver');
  const rows = waiting.items.map((item) => [
    KINDS[item.kind]?.label ?? item.kind,
    item.summary,
    item.amount === undefined ? '' : naira(item.amount),
    personName(item.requestedBy.id),
    h('span', { title: item.requestedAt }, age(item.requestedAt)),
    mayApprove
      ? h(
          'div',
          { class: 'row-actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'primary',
              'aria-label': `Approve ${KINDS[item.kind]?.label ?? item.kind} ${item.summary}`,
              onclick: () => void decide(ctx, item, 'approve', status),
            },
            'Approve…',
          ),
          item.reject &&
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                'aria-label': `Reject ${KINDS[item.kind]?.label ?? item.kind} ${item.summary}`,
                onclick: () => void decide(ctx, item, 'reject', status),
              },
              'Reject…',
            ),
        )
      : h('span', { class: 'muted' }, 'approvers decide'),
  ]);
  replace(
    main,
    h('h1', {}, 'My queue'),
    ctx.flash && notice('ok', ctx.flash),
    status,
    h(
      'section',
      { 'aria-labelledby': 'waiting-for-me' },
      h('h2', { id: 'waiting-for-me' }, 'Waiting for my decision'),
      table(
        'Instructions waiting for a second person',
        ['Kind', 'What', 'Amount', 'Requested by', 'Age', 'Decide'],
        rows,
        'Nothing waits for you.',
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'my-requests' },
      h('h2', { id: 'my-requests' }, 'My requests waiting for someone else'),
      table(
        'Your own requests: not yours to approve',
        ['Kind', 'What', 'Amount', 'Requested', 'Approval'],
        mine.map((item) => [
          item.kind,
          h('a', { href: item.href }, item.summary || item.id),
          naira(item.amount),
          timeIn(ctx.config.timeZone, item.at),
          h('span', { class: 'muted' }, 'not yours to approve: waits for another person'),
        ]),
        'None of your requests waits.',
      ),
    ),
  );
};
