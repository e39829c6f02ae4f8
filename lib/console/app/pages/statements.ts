import { h, replace, table } from '../dom.js';
import { naira, timeIn } from '../format.js';
import type { Page, PageContext } from '../page.js';

interface StatementView {
  readonly date: string;
  readonly timeZone: string;
  readonly completeness: string;
  readonly byKind: Record<string, number>;
  readonly findings?: readonly {
    kind: string;
    amountKobo?: number;
    detail?: string;
    payoutId?: string;
    transactionId?: string;
  }[];
  readonly providerTotals?: Record<string, number>;
  readonly payoutTotals?: Record<string, number>;
  readonly generatedAt: string;
}

const kinds = (byKind: Record<string, number>) =>
  Object.entries(byKind)
    .map(([kind, n]) => `${kind.replaceAll('_', ' ')} ${n}`)
    .join(', ');

const totals = (values: Record<string, number> | undefined) =>
  Object.entries(values ?? {})
    .map(([name, kobo]) => `${name}: ${Number.isSafeInteger(kobo) ? naira(kobo) : String(kobo)}`)
    .join('; ');

export const statementsPage: Page = async (ctx, main, date) => {
  if (date) return statementDetail(ctx, main, date);
  const days = await ctx.api.call<{ items: StatementView[] }>('GET', '/statements', {
    query: { limit: '31' },
  });
  replace(
    main,
    h('h1', {}, 'Statements'),
    h(
      'p',
      {},
      "Each day's provider statement matched line by line against our payouts, refunds and settlements.",
    ),
    table(
      'Daily reconciliations, newest first',
      ['Day', 'Complete', 'Lines', 'Made'],
      days.items.map((day) => [
        h('a', { href: `#/statements/${day.date}` }, day.date),
        day.completeness,
        kinds(day.byKind),
        timeIn(ctx.config.timeZone, day.generatedAt),
      ]),
      'No statement yet.',
    ),
  );
};

async function statementDetail(ctx: PageContext, main: HTMLElement, date: string) {
  const day = await ctx.api.call<StatementView>('GET', `/statements/${encodeURIComponent(date)}`);
  replace(
    main,
    h('p', {}, h('a', { href: '#/statements' }, '← All days')),
    h('h1', {}, `Statement of ${day.date}`),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Complete'),
      h('dd', {}, day.completeness),
      h('dt', {}, 'Lines'),
      h('dd', {}, kinds(day.byKind)),
      h('dt', {}, 'Provider totals'),
      h('dd', {}, totals(day.providerTotals)),
      h('dt', {}, 'Our totals'),
      h('dd', {}, totals(day.payoutTotals)),
    ),
    h('h2', {}, 'Findings'),
    table(
      'What does not match',
      ['Finding', 'Amount', 'Payout', 'Provider transaction', 'Detail'],
      (day.findings ?? []).map((finding) => [
        finding.kind.replaceAll('_', ' '),
        finding.amountKobo === undefined ? '' : naira(finding.amountKobo),
        finding.payoutId ? h('a', { href: `#/payouts/${finding.payoutId}` }, finding.payoutId) : '',
        finding.transactionId ?? '',
        finding.detail ?? '',
      ]),
      'Every line matches.',
    ),
  );
}
