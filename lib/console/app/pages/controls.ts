import { confirmAction } from '../dialog.js';
import { h, notice, replace } from '../dom.js';
import { naira, personName, timeIn } from '../format.js';
import type { Page } from '../page.js';

export const controlsPage: Page = async (ctx, main) => {
  const controls = await ctx.controls;
  const { limits, dailyCap } = controls;
  const used = dailyCap.mainWalletUsedKobo;
  const toggle =
    ctx.roles.has('admin') &&
    h(
      'button',
      {
        type: 'button',
        class: controls.paused ? 'primary' : 'danger',
        onclick: () =>
          confirmAction({
            title: controls.paused ? 'Resume payouts?' : 'Pause every payout?',
            facts: [
              ['Now', controls.paused ? 'paused: nothing is sent' : 'running'],
              [
                'After',
                controls.paused ? 'waiting payouts are sent again' : 'nothing is sent until an admin resumes',
              ],
            ],
            confirmLabel: controls.paused ? 'Resume payouts' : 'Pause payouts',
            danger: !controls.paused,
            reason: { label: controls.paused ? 'Why resume' : 'Why pause', required: !controls.paused },
            act: async (reason) => {
              await ctx.api.call('POST', controls.paused ? '/controls/resume' : '/controls/pause', {
                json: reason ? { reason } : {},
              });
              return controls.paused
                ? 'Payouts resumed.'
                : 'Payouts paused: nothing is sent until an admin resumes.';
            },
            done: ctx.reloadWith,
          }),
      },
      controls.paused ? 'Resume payouts…' : 'Pause payouts…',
    );
  const row = (term: string, value: Node | string) => [h('dt', {}, term), h('dd', {}, value)];
  replace(
    main,
    h('h1', {}, 'Controls'),
    ctx.flash && notice('ok', ctx.flash),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'pause' },
      h('h2', { id: 'pause' }, 'Pause'),
      h(
        'dl',
        { class: 'facts' },
        ...row('State', controls.paused ? 'paused' : 'running'),
        ...(controls.reason ? row('Reason', controls.reason) : []),
        ...(controls.updatedBy ? row('By', personName(controls.updatedBy.id)) : []),
        ...(controls.updatedAt ? row('Since', timeIn(ctx.config.timeZone, controls.updatedAt)) : []),
      ),
      toggle,
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'limits' },
      h('h2', { id: 'limits' }, 'Limits in force'),
      h(
        'dl',
        { class: 'facts' },
        ...row('Largest single instruction', naira(limits.maxInstructionKobo)),
        ...row('Approval by a second person from', naira(limits.approvalThresholdKobo)),
        ...row(
          'Two approvers from',
          limits.secondApprovalThresholdKobo === undefined
            ? 'off'
            : naira(limits.secondApprovalThresholdKobo),
        ),
        ...row('Daily cap per account', naira(limits.dailyCapKobo)),
      ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'cap' },
      h('h2', { id: 'cap' }, `Today's cap (${dailyCap.day}, ${dailyCap.timeZone})`),
      h('p', {}, `Main wallet: ${naira(used)} of ${naira(limits.dailyCapKobo)} used.`),
      h('progress', { max: limits.dailyCapKobo, value: used, 'aria-label': "Main wallet's cap used today" }),
    ),
  );
};
