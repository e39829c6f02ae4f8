import { confirmAction } from '../dialog.js';
import { h, notice, replace, table } from '../dom.js';
import { timeIn } from '../format.js';
import type { Page } from '../page.js';

interface DeadLetterView {
  readonly id: string;
  readonly detailType: string;
  readonly error: string;
  readonly at: string;
  readonly status: string;
  readonly eventPreview?: string;
}

export const deadLettersPage: Page = async (ctx, main) => {
  const letters = await ctx.api.call<{ items: DeadLetterView[] }>('GET', '/dead-letters', {
    query: { limit: '50' },
  });
  const act = (letter: DeadLetterView, how: 'replay' | 'discard') =>
    h(
      'button',
      {
        type: 'button',
        class: how === 'replay' ? 'primary' : 'secondary',
        'aria-label': `${how === 'replay' ? 'Replay' : 'Discard'} ${letter.detailType} ${letter.id}`,
        onclick: () =>
          confirmAction({
            title: how === 'replay' ? 'Replay this event?' : 'Discard this event?',
            facts: [
              ['Event', letter.detailType],
              ['Refused because', letter.error],
              ['At', timeIn(ctx.config.timeZone, letter.at)],
            ],
            confirmLabel: how === 'replay' ? 'Replay' : 'Discard',
            danger: how === 'discard',
            reason: { label: 'Reason', required: how === 'discard' },
            act: async (reason) => {
              const answer = await ctx.api.call(
                `POST`,
                `/dead-letters/${encodeURIComponent(letter.id)}/${how}`,
                {
                  json: reason ? { reason } : {},
                },
              );
              return `${how === 'replay' ? 'Replayed' : 'Discarded'} ${letter.id}${typeof answer.status === 'string' ? `: ${answer.status}` : ''}.`;
            },
            done: ctx.reloadWith,
          }),
      },
      how === 'replay' ? 'Replay…' : 'Discard…',
    );
  replace(
    main,
    h('h1', {}, 'Dead letters'),
    h(
      'p',
      {},
      'Inbound events that could not be taken, kept with the reason. An admin replays one once its cause is fixed, or discards it.',
    ),
    ctx.flash && notice('ok', ctx.flash),
    table(
      'Events that could not be taken',
      ['At', 'Event', 'Reason', 'Status', 'Act'],
      letters.items.map((letter) => [
        timeIn(ctx.config.timeZone, letter.at),
        letter.detailType,
        letter.error,
        letter.status,
        ctx.roles.has('admin') && letter.status === 'open'
          ? h('div', { class: 'row-actions' }, act(letter, 'replay'), act(letter, 'discard'))
          : '',
      ]),
      'No dead letter.',
    ),
  );
};
