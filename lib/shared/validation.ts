import type * as z from './zod.js';

export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** Renders a zod path as `beneficiary.accountNumber` or `items[2].amount`; the root is `(body)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text === '' ? '(root)' : text;
}

/** Flattens a zod error into `{ path, message }` pairs, one per problem. */
export function fieldIssues(error: z.core.$ZodError): FieldIssue[] {
  return error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return {
        path: formatPath([...issue.path, ...issue.keys.slice(0, 1)]),
        message: `unknown field(s): ${issue.keys.join(', ')}`,
      };
    }
    if (issue.code === 'invalid_key') {
      // A record's key failed its own schema: say why (zod's own message is only "Invalid key in record").
      const reason = issue.issues[0]?.message;
      return { path: formatPath(issue.path), message: reason ? `key ${reason}` : issue.message };
    }
    return { path: formatPath(issue.path), message: issue.message };
  });
}

/**
 * `fieldIssues` of one entry of a batch, each path under the entry's own: `rows[3].accountNumber`, or `row 4`
 * for the entry as a whole.
 *
 * @example issues.push(...entryIssues(`corrections[${index}]`, parsed.error));
 */
export function entryIssues(prefix: string, error: z.core.$ZodError): FieldIssue[] {
  return fieldIssues(error).map((issue) => ({
    path: issue.path === '(root)' ? prefix : `${prefix}.${issue.path}`,
    message: issue.message,
  }));
}

/** One line naming every problem, for error details and logs. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}
