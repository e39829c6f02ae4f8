import { PayoutAutomationError } from '../shared/errors.js';
import type { ProblemSlug, ProblemStatus } from './problem-types.js';

/**
 * A request the API refuses before any engine call; rendered as an RFC 9457 problem by `problem.ts`. The slug
 * is one of `PROBLEM_TYPES` and the status one that type is documented with.
 */
export class ApiError<S extends ProblemSlug = ProblemSlug> extends PayoutAutomationError {
  override readonly name = 'ApiError';
  override readonly code: string;

  constructor(
    readonly status: ProblemStatus<S>,
    readonly slug: S,
    readonly title: string,
    detail: string,
    readonly issues: readonly { path: string; message: string }[] = [],
    options?: ErrorOptions,
  ) {
    super(detail, options);
    this.code = slug.toUpperCase().replaceAll('-', '_');
  }
}

/** 400 with one `{ path, message }` per problem. */
export function validationError(issues: readonly { path: string; message: string }[]): ApiError {
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  return new ApiError(400, 'validation', 'The request is invalid', detail, issues);
}

/** 401 when the caller's principal cannot be established. */
export function unauthenticated(detail: string): ApiError {
  return new ApiError(401, 'unauthenticated', 'The caller is not identified', detail);
}
