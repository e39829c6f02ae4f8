import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { APPROVAL_KINDS } from '../approvals.js';
import * as field from './common.js';

export const WaitingApprovalSchema = z.lazy(() =>
  z.object({
    kind: z.enum(APPROVAL_KINDS),
    id: field.idText,
    amount: z.optional(field.kobo),
    requestedBy: field.PrincipalSchema,
    requestedAt: field.instant,
    firstApproval: z.optional(field.FirstApprovalSchema),
    summary: field.sentence.check(z.describe('what the instruction does, for the approver to read')),
    approve: z
      .object({ method: z.literal('POST'), path: field.idText })
      .check(z.describe('the call that approves it')),
    reject: z.optional(
      z
        .object({ method: z.literal('POST'), path: field.idText })
        .check(
          z.describe(
            'the call that rejects it, with a `reason` (none for a held bulk correction: cancel it)',
          ),
        ),
    ),
  }),
);

export const ApprovalsPageSchema = z.lazy(() =>
  z.object({
    items: z
      .array(WaitingApprovalSchema)
      .check(
        z.maxLength(APPROVAL_KINDS.length * FIELD_MAXIMA.page),
        z.describe('one page (`limit`, at most 100) of each kind, or of `kind` alone'),
      ),
    nextCursors: z
      .partialRecord(z.enum(APPROVAL_KINDS), field.upTo(FIELD_MAXIMA.cursor))
      .check(z.describe('per kind, the cursor of its next page (`?kind=<kind>&cursor=…`)')),
  }),
);
