import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

/** The body of every error answer (RFC 9457 `application/problem+json`). */
export const ProblemSchema = z.lazy(() =>
  z
    .object({
      type: field
        .upTo(FIELD_MAXIMA.name)
        .check(z.describe('a URN of one of the problem types listed in x-problem-types')),
      title: field.upTo(FIELD_MAXIMA.name),
      status: z.int(),
      detail: field.upTo(FIELD_MAXIMA.text),
      errors: z.optional(
        z
          .array(field.FieldIssueSchema)
          .check(
            z.maxLength(FIELD_MAXIMA.issues),
            z.describe(
              `present on validation problems: one entry per invalid field (the first ${FIELD_MAXIMA.issues})`,
            ),
          ),
      ),
    })
    .check(z.describe('RFC 9457 problem details')),
);
export type Problem = z.output<typeof ProblemSchema>;
