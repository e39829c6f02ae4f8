import { problemText } from '../dialog.js';
import { field, h, notice, replace, table } from '../dom.js';
import { maskedAccount, naira, personName } from '../format.js';
import { isMe, type Page, type Principal } from '../page.js';
import { type PayoutView, statusBadge } from './payouts.js';

type Reviewed = PayoutView & {
  readonly paidTwice?: { readonly attempts: readonly number[]; readonly transactionIds: readonly string[] };
  readonly watchedAttempts?: readonly { attempt?: number; marker?: string; provedAbsentAt?: string }[];
  readonly resolutionProposal?: {
    outcome?: string;
    proposedBy?: Principal;
    note?: string;
    transactionId?: string;
  };
};

/** What a person decides for a payout whose outcome is not known, or that needs review. */
function resolveForm(ctx: Parameters<Page>[0], payout: Reviewed, status: HTMLElement): HTMLElement {
  const outcome = h(
    'select',
    { name: 'outcome', required: true },
    h('option', { value: 'succeeded' }, 'paid (a provider record shows it)'),
    h('option', { value: 'failed' }, 'not paid (no provider record for any attempt)'),
    payout.paidTwice && h('option', { value: 'paid_twice_recovered' }, 'paid twice, recovered'),
  );
  const transactionId = h('input', { name: 'transactionId', autocomplete: 'off' });
  const recoveryReference = h('input', { name: 'recoveryReference', autocomplete: 'off' });
  const note = h('textarea', { name: 'note', rows: 2, required: true, maxlength: 500 });
  const proposal = payout.resolutionProposal;
  const submit = h(
    'button',
    { type: 'submit', class: 'primary' },
    proposal ? 'Confirm the proposal' : 'Propose',
  );
  const form = h(
    'form',
    { class: 'card', 'aria-label': `Resolve payout ${payout.id}` },
    proposal &&
      notice(
        'info',
        `${personName(proposal.proposedBy?.id)} proposed ${proposal.outcome ?? 'succeeded'}${proposal.note ? `: ${proposal.note}` : ''}. ${isMe(ctx, proposal.proposedBy?.id) ? 'A second person must confirm it.' : 'Send the same decision to confirm it.'}`,
      ),
    field('Outcome', outcome),
    field('Provider transaction id (for paid)', transactionId),
    field('Recovery reference (for paid twice)', recoveryReference),
    field('Evidence', note, 'what you checked at the provider'),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    const body: Record<string, string> = { outcome: outcome.value, note: note.value.trim() };
    // Each outcome takes its own fields only (the API refuses others).
    if (outcome.value !== 'failed' && transactionId.value.trim())
      body.transactionId = transactionId.value.trim();
    if (outcome.value === 'paid_twice_recovered') body.recoveryReference = recoveryReference.value.trim();
    void ctx.api
      .call<Reviewed>('POST', `/payouts/${payout.id}/resolve`, { json: body })
      .then((answer) =>
        replace(
          status,
          notice(
            'ok',
            answer.resolutionProposal
              ? `Proposed for ${payout.id}: a second person confirms it.`
              : `Resolved ${payout.id}: it is now ${answer.status.replaceAll('_', ' ')}.`,
          ),
        ),
      )
      .catch((error: unknown) => replace(status, notice('error', problemText(error))))
      .finally(() => {
        submit.disabled = false;
      });
  });
  return form;
}

export const reviewPage: Page = async (ctx, main) => {
  const status = h('div', { class: 'status-region' });
  const [review, unknown] = await Promise.all(
    ['needs_review', 'unknown'].map((s) =>
      ctx.api.call<{ items: Reviewed[] }>('GET', '/payouts', { query: { status: s, limit: '100' } }),
    ),
  );
  // A listed payout carries every field the review needs (all but a first approval).
  const items = [...(review?.items ?? []), ...(unknown?.items ?? [])];
  // What the reconciler found at the provider is in the reason it gave when it handed the payout to people.
  const found = await Promise.all(
    items.map(async (p) => {
      const audit = await ctx.api.call<{ items: { to?: string; reason?: string }[] }>(
        'GET',
        `/payouts/${p.id}/audit`,
        {
          query: { limit: '100' },
        },
      );
      return audit.items.filter((event) => event.to === p.status).at(-1)?.reason ?? '';
    }),
  );
  replace(
    main,
    h('h1', {}, 'Needs review'),
    h(
      'p',
      {},
      'Payouts whose outcome the provider has not shown, or that need a person. Every resolution takes two people: one proposes with the evidence, another confirms.',
    ),
    status,
    table(
      'Payouts waiting for a person',
      ['Payout', 'Amount', 'Beneficiary', 'Status', 'Found at the provider', 'Attempts'],
      items.map((p, i) => [
        h('a', { href: `#/payouts/${p.id}` }, p.id),
        naira(p.amount),
        p.beneficiary ? `${p.beneficiary.accountName} ${maskedAccount(p.beneficiary.accountNumber)}` : p.type,
        statusBadge(p.status),
        p.paidTwice
          ? `paid twice: ${p.paidTwice.transactionIds.join(', ')}`
          : found[i] || (p.failure?.message ?? ''),
        String(p.watchedAttempts?.length ?? 0),
      ]),
      'Nothing needs review.',
    ),
    ...(ctx.roles.has('approver') ? items.map((p) => resolveForm(ctx, p, status)) : []),
  );
};
