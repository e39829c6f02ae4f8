import { ApiProblem } from '../api.js';
import { problemText } from '../dialog.js';
import { field, h, notice, replace, table } from '../dom.js';
import { naira, personName, timeIn } from '../format.js';
import type { Page, PageContext, Principal } from '../page.js';

interface RunView {
  readonly runId: string;
  readonly status: string;
  readonly count: number;
  readonly totalKobo: number;
  readonly requestedBy: Principal;
  readonly approvedBy?: Principal;
  readonly createdAt: string;
  readonly materialised: number;
  readonly fileSha256: string;
  readonly counts?: Record<string, number>;
  readonly sentKobo?: number;
  readonly failedKobo?: number;
  readonly percentDone?: number;
  readonly etaSeconds?: number;
}

const ENDED = new Set(['completed', 'needs_attention', 'cancelled']);

/** The upload: a file read into an editable text, so a bad row is fixed here and sent again. */
function uploadForm(ctx: PageContext, status: HTMLElement): HTMLElement {
  let idempotencyKey = crypto.randomUUID();
  const file = h('input', { type: 'file', name: 'file', accept: '.csv,text/csv' });
  const text = h('textarea', { name: 'csv', rows: 10, spellcheck: false, class: 'mono' });
  const acknowledge = h('input', { type: 'checkbox', name: 'acknowledgeDuplicates', id: 'ack-duplicates' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Upload run');
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (chosen)
      void chosen.text().then((content) => {
        text.value = content;
      });
  });
  // A changed file is another request: a new key (the same key with other rows is refused as a conflict).
  text.addEventListener('input', () => {
    idempotencyKey = crypto.randomUUID();
  });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-run' },
    h('h2', { id: 'new-run' }, 'New payout run'),
    field(
      'CSV file',
      file,
      'reference, amount (kobo) or amountNaira, bankCode, accountNumber, accountName, narration, scheduleAt',
    ),
    field('Rows (edit to fix a row)', text),
    h(
      'div',
      { class: 'check' },
      acknowledge,
      h('label', { for: 'ack-duplicates' }, 'The duplicates are meant'),
    ),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    void ctx.api
      .call<RunView>('POST', '/payout-runs', {
        csv: text.value,
        idempotencyKey,
        query: { acknowledgeDuplicates: acknowledge.checked ? 'true' : undefined },
      })
      .then((run) => {
        location.hash = `#/runs/${run.runId}`;
      })
      .catch((error: unknown) => {
        const rows = error instanceof ApiProblem ? error.errors : [];
        replace(
          status,
          notice(
            'error',
            rows.length > 0
              ? `The file has ${rows.length} problem${rows.length === 1 ? '' : 's'}: nothing was stored. Fix them and upload again.`
              : problemText(error),
          ),
          rows.length > 0 &&
            table(
              'Problems by row',
              ['Row and field', 'Problem'],
              rows.map((row) => [row.path, row.message]),
            ),
        );
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return form;
}

export const runsPage: Page = async (ctx, main, id) => {
  if (id) return runDetail(ctx, main, id);
  const status = h('div', { class: 'status-region' });
  const runs = await ctx.api.call<{ items: RunView[] }>('GET', '/payout-runs', { query: { limit: '50' } });
  replace(
    main,
    h('h1', {}, 'Payout runs'),
    status,
    ctx.roles.has('requester') && uploadForm(ctx, status),
    table(
      'Runs, newest first',
      ['Created', 'Rows', 'Total', 'Status', 'Requested by'],
      runs.items.map((run) => [
        timeIn(ctx.config.timeZone, run.createdAt),
        h('a', { href: `#/runs/${run.runId}` }, `${run.count} rows`),
        naira(run.totalKobo),
        run.status.replaceAll('_', ' '),
        personName(run.requestedBy.id),
      ]),
      'No run yet.',
    ),
  );
};

async function runDetail(ctx: PageContext, main: HTMLElement, id: string) {
  const run = await ctx.api.call<RunView>('GET', `/payout-runs/${encodeURIComponent(id)}`);
  const percent = run.percentDone ?? 0;
  const results = h('button', { type: 'button', class: 'secondary' }, 'Download results CSV');
  results.addEventListener('click', () => {
    void ctx.api.download(`/payout-runs/${encodeURIComponent(id)}/results.csv`).then((blob) => {
      const link = h('a', { href: URL.createObjectURL(blob), download: `payout-run-${id}.csv` });
      link.click();
      URL.revokeObjectURL(link.href);
    });
  });
  replace(
    main,
    h('p', {}, h('a', { href: '#/runs' }, '← All runs')),
    h('h1', {}, `Payout run ${run.runId}`),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Status'),
      h('dd', { 'data-run-status': run.status }, run.status.replaceAll('_', ' ')),
      h('dt', {}, 'Rows'),
      h('dd', {}, String(run.count)),
      h('dt', {}, 'Total'),
      h('dd', {}, naira(run.totalKobo)),
      h('dt', {}, 'Sent'),
      h('dd', {}, naira(run.sentKobo ?? 0)),
      h('dt', {}, 'Failed'),
      h('dd', {}, naira(run.failedKobo ?? 0)),
      h('dt', {}, 'Requested by'),
      h('dd', {}, personName(run.requestedBy.id)),
      h('dt', {}, 'Approved by'),
      h('dd', {}, run.approvedBy ? personName(run.approvedBy.id) : 'not yet'),
      h('dt', {}, 'File SHA-256'),
      h('dd', { class: 'mono' }, run.fileSha256),
    ),
    h(
      'div',
      { class: 'progress-line' },
      h('label', { for: 'run-progress' }, 'Done'),
      h('progress', { id: 'run-progress', max: 100, value: percent, 'aria-valuetext': `${percent} %` }),
      h('output', { for: 'run-progress', 'data-percent': percent }, `${percent} %`),
      run.etaSeconds !== undefined &&
        h('span', { class: 'muted' }, ` about ${Math.ceil(run.etaSeconds / 60)} min left`),
    ),
    table(
      'Rows by status',
      ['Status', 'Rows'],
      Object.entries(run.counts ?? {}).map(([s, n]) => [s.replaceAll('_', ' '), String(n)]),
    ),
    run.status === 'pending_approval' &&
      notice('info', 'This run waits for a second person: approvers see it in their queue.'),
    results,
  );
  // Until it ends the page follows it: the approval arriving, then the rows being sent.
  if (!ENDED.has(run.status)) {
    setTimeout(
      () => {
        if (ctx.isCurrent()) ctx.reload();
      },
      run.status === 'pending_approval' ? 5000 : 2000,
    );
  }
}
