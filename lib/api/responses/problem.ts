import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { FieldIssueSchema, upTo } from './common.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

/** The body of every error answer (RFC 9457 `application/problem+json`). */
export const ProblemSchema = z.lazy(() =>
  z
    .object({
      type: upTo(FIELD_MAXIMA.name).check(
        z.describe('a URN of one of the problem types listed in x-problem-types'),
      ),
      title: upTo(FIELD_MAXIMA.name),
      status: z.int(),
      detail: upTo(FIELD_MAXIMA.text),
      errors: z.optional(
        z
          .array(FieldIssueSchema)
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
