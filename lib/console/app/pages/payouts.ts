import { koboOfNairaText } from '../../../money.js';
import { ApiProblem } from '../api.js';
import { problemText } from '../dialog.js';
import { field, h, notice, replace, table } from '../dom.js';
import { maskedAccount, naira, personName, timeIn } from '../format.js';
import type { Page, PageContext, Principal } from '../page.js';

export interface PayoutView {
  readonly id: string;
  readonly type: string;
  readonly status: string;
  readonly amount: number;
  readonly narration: string;
  readonly beneficiary?: { bankCode: string; accountNumber: string; accountName: string };
  readonly idempotencyKey: string;
  readonly requestedBy: Principal;
  readonly approvedBy?: Principal;
  readonly receipt?: {
    transactionId?: string;
    reference?: string;
    sessionId?: string;
    status?: string;
    charges?: number;
  };
  readonly failure?: { code: string; message: string };
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly metadata?: Record<string, string>;
}

const STATUSES = [
  'pending_approval',
  'pending',
  'scheduled',
  'submitting',
  'unknown',
  'needs_review',
  'succeeded',
  'failed',
  'cancelled',
  'missed',
];

const FINAL = new Set(['succeeded', 'failed', 'cancelled', 'missed']);

export const statusBadge = (status: string) =>
  h('span', { class: `badge s-${status}` }, status.replaceAll('_', ' '));

/** The filters the API applies (status, dates) and those applied to the pages read (beneficiary, reference, requester). */
function matches(payout: PayoutView, filters: Record<string, string>): boolean {
  const has = (text: string | undefined, wanted: string | undefined) =>
    !wanted || (text ?? '').toLowerCase().includes(wanted.toLowerCase());
  const beneficiary = payout.beneficiary
    ? `${payout.beneficiary.accountName} ${payout.beneficiary.accountNumber}`
    : '';
  const references = [
    payout.id,
    payout.idempotencyKey,
    payout.narration,
    payout.receipt?.reference,
    payout.receipt?.transactionId,
    ...Object.values(payout.metadata ?? {}),
  ].join(' ');
  return (
    has(beneficiary, filters.beneficiary) &&
    has(references, filters.reference) &&
    has(personName(payout.requestedBy.id), filters.requester)
  );
}

/** Local midnight of a date input, as the UTC instant the API compares. */
const instantOf = (date: string | undefined, endOfDay: boolean) =>
  date ? new Date(`${date}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}`).toISOString() : undefined;

function newPayoutForm(ctx: PageContext, status: HTMLElement): HTMLElement {
  // One key per payout being written: a second click, or a retry after a timeout, is the same request.
  let idempotencyKey = crypto.randomUUID();
  const amount = h('input', { name: 'amount', inputmode: 'decimal', required: true, autocomplete: 'off' });
  const accountName = h('input', { name: 'accountName', required: true, maxlength: 100 });
  const accountNumber = h('input', {
    name: 'accountNumber',
    required: true,
    inputmode: 'numeric',
    maxlength: 10,
  });
  const bankCode = h('input', { name: 'bankCode', required: true, maxlength: 6 });
  const narration = h('input', { name: 'narration', required: true, maxlength: 60 });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Request payout');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-payout' },
    h('h2', { id: 'new-payout' }, 'New bank payout'),
    field('Amount (NGN)', amount, 'naira with kobo, e.g. 1,500,000.00'),
    field('Beneficiary name', accountName),
    field('Account number', accountNumber, '10-digit NUBAN'),
    field('Bank code', bankCode),
    field('Narration', narration),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    let kobo: number;
    try {
      kobo = koboOfNairaText(amount.value);
    } catch (error) {
      replace(status, notice('error', `Amount ${error instanceof Error ? error.message : ''}`));
      amount.focus();
      return;
    }
    submit.disabled = true;
    void ctx.api
      .call<PayoutView>('POST', '/payouts', {
        idempotencyKey,
        json: {
          type: 'bank_transfer',
          amount: kobo,
          currency: 'NGN',
          narration: narration.value.trim(),
          beneficiary: {
            bankCode: bankCode.value.trim(),
            accountNumber: accountNumber.value.trim(),
            accountName: accountName.value.trim(),
          },
        },
      })
      .then((payout) => {
        idempotencyKey = crypto.randomUUID();
        form.reset();
        replace(
          status,
          notice(
            'ok',
            payout.status === 'pending_approval'
              ? `Payout ${payout.id} of ${naira(payout.amount)} waits for a second person's approval.`
              : `Payout ${payout.id} of ${naira(payout.amount)} is ${payout.status.replaceAll('_', ' ')}.`,
          ),
          h('a', { href: `#/payouts/${payout.id}` }, 'Open it'),
        );
      })
      .catch((error: unknown) => {
        const fields = error instanceof ApiProblem ? error.errors.map((e) => `${e.path}: ${e.message}`) : [];
        replace(
          status,
          notice('error', problemText(error)),
          fields.length > 0 && h('ul', {}, ...fields.map((f) => h('li', {}, f))),
        );
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return form;
}

export const payoutsPage: Page = async (ctx, main, id) => {
  if (id) return payoutDetail(ctx, main, id);
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const filters = Object.fromEntries(params);
  const status = h('div', { class: 'status-region' });
  const select = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'any'),
    ...STATUSES.map((s) => h('option', { value: s, selected: filters.status === s }, s.replaceAll('_', ' '))),
  );
  const input = (name: string, type = 'text') => h('input', { name, type, value: filters[name] ?? '' });
  const search = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Search payouts' },
    field('Status', select),
    field('From', input('from', 'date')),
    field('To', input('to', 'date')),
    field('Beneficiary', input('beneficiary')),
    field('Reference', input('reference'), 'id, key, narration or provider reference'),
    field('Requester', input('requester')),
    h('button', { type: 'submit', class: 'secondary' }, 'Search'),
  );
  search.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = new URLSearchParams();
    for (const [name, value] of new FormData(search)) if (String(value)) chosen.set(name, String(value));
    location.hash = `#/payouts?${chosen.toString()}`;
  });
  const listed: PayoutView[] = [];
  let cursor: string | undefined;
  // Up to five pages of 100 are read and filtered here for beneficiary, reference and requester.
  for (let page = 0; page < 5; page += 1) {
    const answer = await ctx.api.call<{ items: PayoutView[]; nextCursor?: string }>('GET', '/payouts', {
      query: {
        status: filters.status,
        from: instantOf(filters.from, false),
        to: instantOf(filters.to, true),
        limit: '100',
        cursor,
      },
    });
    listed.push(...answer.items.filter((payout) => matches(payout, filters)));
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  replace(
    main,
    h('h1', {}, 'Payouts'),
    status,
    ctx.roles.has('requester') && newPayoutForm(ctx, status),
    search,
    table(
      `Payouts${cursor ? ' (the newest 500 read; narrow the dates for older ones)' : ''}`,
      ['Created', 'Amount', 'Beneficiary', 'Status', 'Requested by', 'Narration'],
      listed.map((payout) => [
        timeIn(ctx.config.timeZone, payout.createdAt),
        h('a', { href: `#/payouts/${payout.id}` }, naira(payout.amount)),
        payout.beneficiary
          ? `${payout.beneficiary.accountName} ${maskedAccount(payout.beneficiary.accountNumber)}`
          : payout.type,
        statusBadge(payout.status),
        personName(payout.requestedBy.id),
        payout.narration,
      ]),
      'No payout matches.',
    ),
  );
};

interface AuditEvent {
  readonly at: string;
  readonly actor?: Principal;
  readonly from?: string;
  readonly to?: string;
  readonly event?: string;
  readonly reason?: string;
}

async function payoutDetail(ctx: PageContext, main: HTMLElement, id: string) {
  const payout = await ctx.api.call<PayoutView & { audit?: AuditEvent[] }>(
    'GET',
    `/payouts/${encodeURIComponent(id)}`,
  );
  const audit = await ctx.api.call<{ items: AuditEvent[] }>(
    'GET',
    `/payouts/${encodeURIComponent(id)}/audit`,
    {
      query: { limit: '100' },
    },
  );
  const facts: [string, Node | string][] = [
    ['Status', statusBadge(payout.status)],
    ['Amount', naira(payout.amount)],
    ['Type', payout.type],
    [
      'Beneficiary',
      payout.beneficiary
        ? `${payout.beneficiary.accountName}, ${maskedAccount(payout.beneficiary.accountNumber)} (bank ${payout.beneficiary.bankCode})`
        : '',
    ],
    ['Narration', payout.narration],
    ['Requested by', personName(payout.requestedBy.id)],
    ['Approved by', personName(payout.approvedBy?.id)],
    ['Created', timeIn(ctx.config.timeZone, payout.createdAt)],
    ['Idempotency key', payout.idempotencyKey],
    ['Provider transaction', payout.receipt?.transactionId ?? ''],
    ['Provider reference', payout.receipt?.reference ?? ''],
    ['Session id', payout.receipt?.sessionId ?? ''],
    ['Charges', payout.receipt?.charges === undefined ? '' : naira(payout.receipt.charges)],
    ['Failure', payout.failure ? `${payout.failure.code}: ${payout.failure.message}` : ''],
  ];
  replace(
    main,
    h('p', {}, h('a', { href: '#/payouts' }, '← All payouts')),
    h('h1', {}, `Payout ${payout.id}`),
    h(
      'dl',
      { class: 'facts' },
      ...facts
        .filter(([, value]) => value !== '')
        .flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
    ),
    h('h2', {}, 'Audit trail'),
    table(
      'Every change, oldest first',
      ['When', 'Who', 'From → to', 'Reason'],
      audit.items.map((event) => [
        timeIn(ctx.config.timeZone, event.at),
        personName(event.actor?.id),
        event.from || event.to
          ? `${event.from ?? '∅'} → ${event.to ?? event.from ?? ''}`
          : (event.event ?? ''),
        event.reason ?? '',
      ]),
    ),
  );
  // While it is still moving, the page follows it.
  if (!FINAL.has(payout.status) && payout.status !== 'pending_approval' && payout.status !== 'needs_review') {
    setTimeout(() => {
      if (ctx.isCurrent()) ctx.reload();
    }, 2000);
  }
}
