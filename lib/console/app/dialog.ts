import { ApiProblem } from './api.js';
import { append, field, h, notice } from './dom.js';

/**
 * A modal confirmation (the native <dialog>: focus moves into it, Escape closes it, the page behind is inert).
 * `facts` are what is being decided, shown exactly; with `reason`, a reason is required. `act` runs on confirm;
 * its refusal is shown in the dialog, which stays open.
 */
export function confirmAction(options: {
  title: string;
  facts: readonly (readonly [string, Node | string])[];
  confirmLabel: string;
  reason?: { label: string; required: boolean };
  danger?: boolean;
  act: (reason: string | undefined) => Promise<string>;
  done: (message: string) => void;
}): void {
  const reasonInput = options.reason
    ? h('textarea', { name: 'reason', rows: 3, maxlength: 500, required: options.reason.required })
    : undefined;
  const status = h('div', { class: 'dialog-status' });
  const confirm = h(
    'button',
    { type: 'submit', class: options.danger ? 'danger' : 'primary' },
    options.confirmLabel,
  );
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const titleId = `d-${Math.random().toString(36).slice(2, 10)}`;
  const form = h(
    'form',
    { method: 'dialog' },
    h('h2', { id: titleId }, options.title),
    h(
      'dl',
      { class: 'facts' },
      ...options.facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
    ),
    reasonInput && field(options.reason?.label ?? 'Reason', reasonInput),
    status,
    h('div', { class: 'actions' }, confirm, cancel),
  );
  const dialog = h('dialog', { 'aria-labelledby': titleId }, form);
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const reason = reasonInput?.value.trim();
    if (options.reason?.required && !reason) {
      status.replaceChildren(notice('error', `${options.reason.label} is required.`));
      reasonInput?.focus();
      return;
    }
    confirm.disabled = true;
    void options
      .act(reason || undefined)
      .then((message) => {
        dialog.close();
        options.done(message);
      })
      .catch((error: unknown) => {
        confirm.disabled = false;
        status.replaceChildren(
          notice('error', error instanceof ApiProblem ? error.describe() : String(error)),
        );
      });
  });
  append(document.body, [dialog]);
  dialog.showModal();
}

/** The message of any refusal, as people should read it. */
export const problemText = (error: unknown): string =>
  error instanceof ApiProblem ? error.describe() : error instanceof Error ? error.message : String(error);
