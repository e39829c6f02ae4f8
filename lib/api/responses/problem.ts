import * as z from '../../shared/zod.js';
import { FieldIssueSchema } from './common.js';

/** The body of every error answer (RFC 9457 `application/problem+json`). */
export const ProblemSchema = z
  .object({
    type: z.string().check(z.describe('a URN of one of the problem types listed in x-problem-types')),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    errors: z.optional(
      z
        .array(FieldIssueSchema)
        .check(z.describe('present on validation problems: one entry per invalid field')),
    ),
  })
  .check(z.describe('RFC 9457 problem details'));
export type Problem = z.output<typeof ProblemSchema>;
