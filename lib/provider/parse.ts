import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import type { ResponseIssue } from './errors.js';

// zod/mini ships without messages; the English locale makes issues readable. Configured once, here.
z.config(en());

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; issues: ResponseIssue[] };

/** Validates a response body; on failure names each field path, e.g. `data.transactions[0].amount`. */
export function parseWith<S extends z.ZodMiniType>(schema: S, value: unknown): ParseOutcome<z.output<S>> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({
      path: formatPath(issue.path),
      message: issue.message.replace(/^Invalid input: /, ''),
    })),
  };
}

/** `['data', 'transactions', 0, 'amount']` -> `data.transactions[0].amount`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text === '' ? '(root)' : text;
}
