import { confirmAction } from '../dialog.js';
import { field, h, notice, replace, table } from '../dom.js';
import { personName, timeIn } from '../format.js';
import { isMe, type Page, type PageContext, type Principal } from '../page.js';

const GROUPS = ['viewer', 'requester', 'approver', 'admin'] as const;

interface OperatorView {
  readonly username: string;
  readonly email?: string;
  readonly enabled: boolean;
  readonly status: string;
  readonly groups: readonly string[];
}

interface Proposal {
  readonly id: string;
  readonly kind: 'grant' | 'enable';
  readonly groups: readonly string[];
  readonly reason: string;
  readonly proposedBy: Principal;
  readonly proposedAt: string;
}

interface ChangeAnswer {
  readonly applied: boolean;
  readonly proposal?: Proposal;
}

const said = (answer: ChangeAnswer, what: string) =>
  answer.applied ? `${what}: done.` : `${what}: proposed. Another admin confirms it before it takes effect.`;

function groupChoices(name: string): HTMLElement {
  return h(
    'fieldset',
    { class: 'groups' },
    h('legend', {}, 'Groups'),
    ...GROUPS.map((group) =>
      h(
        'div',
        { class: 'check' },
        h('input', { type: 'checkbox', name, value: group, id: `${name}-${group}` }),
        h('label', { for: `${name}-${group}` }, group),
      ),
    ),
  );
}

const chosen = (form: HTMLFormElement, name: string) =>
  [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((box) => box.value);

/** Invite a person, or change someone's access: every change shown before it is sent, with its reason. */
function changeForm(ctx: PageContext, operators: readonly OperatorView[], status: HTMLElement): HTMLElement {
  const who = h(
    'select',
    { name: 'username' },
    ...operators.map((o) => h('option', { value: o.username }, o.username)),
  );
  const action = h(
    'select',
    { name: 'action' },
    h('option', { value: 'grant' }, 'give groups (a second admin confirms requester, approver, admin)'),
    h('option', { value: 'revoke' }, 'take groups away'),
    h('option', { value: 'disable' }, 'disable: every session refused at once'),
    h('option', { value: 'enable' }, 'enable again'),
  );
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'change-access' },
    h('h2', { id: 'change-access' }, 'Change access'),
    field('Operator', who),
    field('Change', action),
    groupChoices('change-groups'),
    h('button', { type: 'submit', class: 'primary' }, 'Review the change…'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const groups = chosen(form, 'change-groups');
    const needsGroups = action.value === 'grant' || action.value === 'revoke';
    if (needsGroups && groups.length === 0) {
      replace(status, notice('error', 'Choose the groups to give or take away.'));
      return;
    }
    confirmAction({
      title: `Change ${who.value}'s access?`,
      facts: [
        ['Operator', who.value],
        ['Change', action.selectedOptions[0]?.textContent ?? action.value],
        ...(needsGroups ? [['Groups', groups.join(', ')] as [string, string]] : []),
      ],
      confirmLabel: 'Send the change',
      danger: action.value === 'disable' || action.value === 'revoke',
      reason: { label: 'Reason (kept in the audit)', required: true },
      act: async (reason) =>
        said(
          await ctx.api.call<ChangeAnswer>(
            'POST',
            `/operators/${encodeURIComponent(who.value)}/${action.value}`,
            {
              json: needsGroups ? { groups, reason } : { reason },
            },
          ),
          `${action.value} ${who.value}`,
        ),
      done: ctx.reloadWith,
    });
  });
  return form;
}

function inviteForm(ctx: PageContext, status: HTMLElement): HTMLElement {
  const username = h('input', { name: 'username', required: true, autocomplete: 'off' });
  const email = h('input', { name: 'email', type: 'email', required: true, autocomplete: 'off' });
  const reason = h('input', { name: 'reason', required: true, maxlength: 500 });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'invite' },
    h('h2', { id: 'invite' }, 'Invite an operator'),
    field('Username', username),
    field('Email', email, 'the pool sends the first password here'),
    groupChoices('invite-groups'),
    field('Reason', reason),
    h('button', { type: 'submit', class: 'secondary' }, 'Invite'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const groups = chosen(form, 'invite-groups');
    if (groups.length === 0) {
      replace(status, notice('error', 'Choose at least one group.'));
      return;
    }
    void ctx.api
      .call<ChangeAnswer>('POST', '/operators', {
        json: {
          username: username.value.trim(),
          email: email.value.trim(),
          groups,
          reason: reason.value.trim(),
        },
      })
      .then((answer) => ctx.reloadWith(said(answer, `invite ${username.value.trim()}`)))
      .catch((error: unknown) =>
        replace(status, notice('error', error instanceof Error ? error.message : String(error))),
      );
  });
  return form;
}

export const operatorsPage: Page = async (ctx, main) => {
  const status = h('div', { class: 'status-region' });
  const listed = await ctx.api.call<{ items: OperatorView[] }>('GET', '/operators');
  const details = await Promise.all(
    listed.items.map((o) =>
      ctx.api.call<OperatorView & { pendingProposals?: Proposal[] }>(
        'GET',
        `/operators/${encodeURIComponent(o.username)}`,
      ),
    ),
  );
  const proposals = details.flatMap((o) =>
    (o.pendingProposals ?? []).map((p) => ({ operator: o.username, ...p })),
  );
  const decide = (p: (typeof proposals)[number], how: 'confirm' | 'cancel') =>
    h(
      'button',
      {
        type: 'button',
        class: how === 'confirm' ? 'primary' : 'secondary',
        'aria-label': `${how === 'confirm' ? 'Confirm' : 'Cancel'} ${p.kind} of ${p.groups.join(', ')} for ${p.operator}`,
        onclick: () =>
          confirmAction({
            title: how === 'confirm' ? `Give ${p.operator} this access?` : 'Cancel this proposal?',
            facts: [
              ['Operator', p.operator],
              ['Change', `${p.kind} ${p.groups.join(', ')}`],
              ['Proposed by', personName(p.proposedBy.id)],
              ['Why', p.reason],
            ],
            confirmLabel: how === 'confirm' ? 'Confirm' : 'Cancel the proposal',
            danger: how === 'cancel',
            // A withdrawal says why, for the audit; a confirmation stands on the proposal's own reason.
            ...(how === 'cancel' && { reason: { label: 'Why withdraw it', required: true } }),
            act: async (reason) => {
              await ctx.api.call(
                'POST',
                `/operators/${encodeURIComponent(p.operator)}/proposals/${encodeURIComponent(p.id)}/${how}`,
                { json: reason ? { reason } : {} },
              );
              return how === 'confirm' ? `${p.operator}'s access changed.` : 'Proposal cancelled.';
            },
            done: ctx.reloadWith,
          }),
      },
      how === 'confirm' ? 'Confirm…' : 'Cancel…',
    );
  replace(
    main,
    h('h1', {}, 'Operators'),
    h(
      'p',
      {},
      'Who may do what. Giving access that moves money takes two admins; taking it away takes one. Nobody changes their own.',
    ),
    ctx.flash && notice('ok', ctx.flash),
    status,
    table(
      'Operators of the user pool',
      ['Username', 'Email', 'Groups', 'State'],
      listed.items.map((o) => [
        o.username,
        o.email ?? '',
        o.groups.join(', '),
        o.enabled ? o.status.toLowerCase() : 'disabled',
      ]),
    ),
    h('h2', {}, 'Waiting for a second admin'),
    table(
      'Proposed changes of access',
      ['Operator', 'Change', 'Proposed by', 'When', 'Decide'],
      proposals.map((p) => [
        p.operator,
        `${p.kind} ${p.groups.join(', ')}`,
        personName(p.proposedBy.id),
        timeIn(ctx.config.timeZone, p.proposedAt),
        isMe(ctx, p.proposedBy.id)
          ? h(
              'div',
              { class: 'row-actions' },
              h('span', { class: 'muted' }, 'yours: another admin confirms'),
              decide(p, 'cancel'),
            )
          : h('div', { class: 'row-actions' }, decide(p, 'confirm'), decide(p, 'cancel')),
      ]),
      'No change waits.',
    ),
    changeForm(ctx, listed.items, status),
    inviteForm(ctx, status),
  );
};
