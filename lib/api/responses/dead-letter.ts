import { DEAD_LETTER_STATUSES } from '../../events/dead-letter.js';
import * as z from '../../shared/zod.js';
import { FieldIssueSchema, instant, PrincipalSchema, pageOf } from './common.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

export const DeadLetterResponseSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    event: z.unknown().check(z.describe('the event as it was delivered')),
    detailType: z.optional(
      z.string().check(z.describe("the event's detail-type: which handler a replay goes to")),
    ),
    error: z.object({
      name: z.string(),
      code: z.string(),
      message: z.string(),
      issues: z.array(FieldIssueSchema),
    }),
    at: instant,
    status: z.enum(DEAD_LETTER_STATUSES),
    actions: z.array(
      z.object({
        action: z.enum(['replay', 'discard']),
        by: PrincipalSchema,
        at: instant,
        note: z.string().check(z.describe('why it was discarded, or what the replay came to')),
      }),
    ),
  }),
);

export const DeadLetterPageSchema = pageOf(DeadLetterResponseSchema);

export const ReplayDeliveredSchema = z.lazy(() =>
  z.object({
    delivered: z.literal(true),
    letter: DeadLetterResponseSchema,
  }),
);
/** `422`: the handler refused the event again; the letter stays open with this replay recorded. */
export const ReplayRefusedSchema = z.lazy(() =>
  z.object({
    delivered: z.literal(false),
    letter: DeadLetterResponseSchema,
  }),
);
