import { OPERATOR_ACTIONS, OPERATOR_GROUPS } from '../../operators/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

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
      id: field.idText,
      kind: z.enum(['grant', 'enable']),
      groups: Groups,
      reason: field.sentence,
      proposedBy: field.PrincipalSchema,
      proposedAt: field.instant,
      status: z.enum(['pending', 'confirmed', 'cancelled']),
      decidedBy: z.optional(field.PrincipalSchema),
      decidedAt: z.optional(field.instant),
    })
    .check(
      z.describe(
        'a change that gives access (a group that moves money, enabling an operator who holds one), waiting for a second admin: never the one who proposed it',
      ),
    ),
);

const operatorFields = () => ({
  username: field.upTo(128),
  email: z.optional(field.upTo(254)),
  sub: field.wordText,
  enabled: z.boolean(),
  status: field.wordText,
  groups: Groups,
  createdAt: z.optional(field.instant),
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
    id: field.idText,
    action: z.enum(OPERATOR_ACTIONS),
    actor: field.PrincipalSchema,
    at: field.instant,
    from: AccessSchema,
    to: AccessSchema,
    reason: field.sentence,
    proposalId: z.optional(field.idText),
    proposedBy: z.optional(field.PrincipalSchema),
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
