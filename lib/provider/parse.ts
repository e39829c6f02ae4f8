import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { formatPath } from '../shared/validation.js';
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
