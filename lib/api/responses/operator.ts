import { OPERATOR_ACTIONS, OPERATOR_GROUPS } from '../../operators/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { idText, instant, PrincipalSchema, sentence, upTo, wordText } from './common.js';

/** The most operators one listing answers (`truncated` says there were more). */
export const OPERATORS_LISTED = 1000;
/** The most pending proposals an operator's answer holds (the oldest first). */
export const PROPOSALS_LISTED = 20;

const Groups = z.lazy(() => z.array(z.enum(OPERATOR_GROUPS)).check(z.maxLength(OPERATOR_GROUPS.length)));

const AccessSchema = z.lazy(() =>
  z.object({ groups: Groups, enabled: z.boolean() }).check(z.describe('groups and whether they may sign in')),
);

export const OperatorProposalSchema = z.lazy(() =>
  z
    .object({
      id: idText,
      kind: z.enum(['grant', 'enable']),
      groups: Groups,
      reason: sentence,
      proposedBy: PrincipalSchema,
      proposedAt: instant,
      status: z.enum(['pending', 'confirmed', 'cancelled']),
      decidedBy: z.optional(PrincipalSchema),
      decidedAt: z.optional(instant),
    })
    .check(
      z.describe(
        'a change that gives access (a group that moves money, enabling an operator who holds one), waiting for a second admin: never the one who proposed it',
      ),
    ),
);

const operatorFields = () => ({
  username: upTo(128),
  email: z.optional(upTo(254)),
  sub: wordText,
  enabled: z.boolean(),
  status: wordText,
  groups: Groups,
  createdAt: z.optional(instant),
});

export const OperatorSummarySchema = z.lazy(() => z.object(operatorFields()));

export const OperatorListSchema = z.lazy(() =>
  z.object({
    items: z.array(OperatorSummarySchema).check(z.maxLength(OPERATORS_LISTED)),
    truncated: z.boolean(),
  }),
);

export const OperatorChangeSchema = z.lazy(() =>
  z.object({
    id: idText,
    action: z.enum(OPERATOR_ACTIONS),
    actor: PrincipalSchema,
    at: instant,
    from: AccessSchema,
    to: AccessSchema,
    reason: sentence,
    proposalId: z.optional(idText),
    proposedBy: z.optional(PrincipalSchema),
  }),
);

const pendingField = () => ({
  pendingProposals: z.array(OperatorProposalSchema).check(z.maxLength(PROPOSALS_LISTED)),
});

export const OperatorResponseSchema = z.lazy(() =>
  z.object({
    ...operatorFields(),
    ...pendingField(),
    audit: z
      .array(OperatorChangeSchema)
      .check(
        z.maxLength(FIELD_MAXIMA.audit),
        z.describe('every change of their access, and every proposal, oldest first (the newest 100)'),
      ),
  }),
);

export const OperatorChangeResponseSchema = z.lazy(() =>
  z.object({
    applied: z
      .boolean()
      .check(z.describe('true: in force now; false: it waits for a second admin to confirm `proposal`')),
    operator: z.object({ ...operatorFields(), ...pendingField() }),
    proposal: z.optional(OperatorProposalSchema),
  }),
);
