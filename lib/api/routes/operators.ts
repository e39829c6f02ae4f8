import {
  type DirectoryUser,
  OPERATOR_GROUPS,
  type OperatorChange,
  type OperatorProposal,
  type OperatorService,
  type OperatorView,
} from '../../operators/index.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import { clientText } from '../../shared/text.js';
import * as z from '../../shared/zod.js';
import { ApiError } from '../errors.js';
import { principal } from '../presenters.js';
import { parseBody } from '../request.js';
import {
  OPERATORS_LISTED,
  OperatorChangeResponseSchema,
  OperatorListSchema,
  OperatorResponseSchema,
  PROPOSALS_LISTED,
} from '../responses/operator.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';

/** A user pool username as the operators' pool takes it (usernames sign in; no e-mail address as username). */
const USERNAME = /^[\w+=,.@-]{1,128}$/;
const UsernameSchema = z.lazy(() =>
  z
    .string()
    .check(
      z.regex(USERNAME, 'must be 1 to 128 letters, digits or + = , . @ _ -'),
      z.describe('the username they sign in with'),
    ),
);
const GroupsSchema = z.lazy(() =>
  z
    .array(z.enum(OPERATOR_GROUPS))
    .check(
      z.minLength(1, 'name at least one group'),
      z.maxLength(OPERATOR_GROUPS.length),
      z.describe('viewer, requester, approver, admin'),
    ),
);
const ReasonSchema = z.lazy(() => clientText({ max: 500 }).check(z.describe('why: kept in the audit')));

/** Body of `POST /operators`: invite an operator into groups. */
export const InviteOperatorRequestSchema = z.lazy(() =>
  z.strictObject({
    username: UsernameSchema,
    email: z.email('must be an e-mail address').check(z.maxLength(254)),
    groups: GroupsSchema,
    reason: ReasonSchema,
  }),
);

/** Body of `POST /operators/{username}/grant` and `/revoke`. */
export const OperatorGroupsRequestSchema = z.lazy(() =>
  z.strictObject({ groups: GroupsSchema, reason: ReasonSchema }),
);

/** Body of `POST /operators/{username}/disable`, `/enable` and a proposal's `/cancel`. */
export const OperatorReasonRequestSchema = z.lazy(() => z.strictObject({ reason: ReasonSchema }));

/** The `username` of the path; one that cannot be a username is no operator (404). */
export const OperatorUsernamePathSchema = UsernameSchema;
export const ProposalIdPathSchema = z.lazy(() => z.string().check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/)));

function usernameOf(request: RouteRequest<'operators'>): string {
  const parsed = UsernameSchema.safeParse(request.params.username);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no operator has this username');
  return parsed.data;
}

function proposalIdOf(request: RouteRequest<'operators'>): string {
  const parsed = ProposalIdPathSchema.safeParse(request.params.proposalId);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no proposal has this id');
  return parsed.data;
}

function service(request: RouteRequest<'operators'>): OperatorService {
  const { operators } = request.ctx;
  if (!operators) {
    throw new ApiError(
      503,
      'not-configured',
      'No user pool to manage',
      'this deployment names no operators user pool (OPS_OPERATOR_USER_POOL_ID)',
    );
  }
  return operators;
}

const { id: ID, text: TEXT } = FIELD_MAXIMA;

function presentUser(user: DirectoryUser) {
  return {
    username: clipText(user.username, 128),
    ...(user.email !== undefined && { email: clipText(user.email, 254) }),
    sub: clipText(user.sub, FIELD_MAXIMA.word),
    enabled: user.enabled,
    status: clipText(user.status, FIELD_MAXIMA.word),
    groups: [...user.groups],
    ...(user.createdAt !== undefined && { createdAt: user.createdAt }),
  };
}

function presentProposal(proposal: OperatorProposal) {
  return {
    id: proposal.id,
    kind: proposal.kind,
    groups: [...proposal.groups],
    reason: clipText(proposal.reason, TEXT),
    proposedBy: principal(proposal.proposedBy),
    proposedAt: proposal.proposedAt,
    status: proposal.status,
    ...(proposal.decidedBy && { decidedBy: principal(proposal.decidedBy) }),
    ...(proposal.decidedAt && { decidedAt: proposal.decidedAt }),
  };
}

function presentChange(change: OperatorChange) {
  return {
    id: change.id,
    action: change.action,
    actor: principal(change.actor),
    at: change.at,
    from: { groups: [...change.from.groups], enabled: change.from.enabled },
    to: { groups: [...change.to.groups], enabled: change.to.enabled },
    reason: clipText(change.reason, TEXT),
    ...(change.proposalId && { proposalId: clipText(change.proposalId, ID) }),
    ...(change.proposedBy && { proposedBy: principal(change.proposedBy) }),
  };
}

const presentView = (view: OperatorView) => ({
  ...presentUser(view),
  pendingProposals: view.pendingProposals.slice(0, PROPOSALS_LISTED).map(presentProposal),
});

async function listOperators(request: RouteRequest<'operators'>) {
  const users = await service(request).list();
  return reply(200, {
    items: users.slice(0, OPERATORS_LISTED).map(presentUser),
    truncated: users.length > OPERATORS_LISTED,
  });
}

async function getOperator(request: RouteRequest<'operators'>) {
  const detail = await service(request).get(usernameOf(request));
  return reply(200, {
    ...presentView(detail),
    audit: detail.audit.slice(-FIELD_MAXIMA.audit).map(presentChange),
  });
}

type ChangeAnswer = Awaited<ReturnType<OperatorService['grant']>>;
const changed = <S extends 200 | 201 | 202>(status: S, result: ChangeAnswer) =>
  reply(status, {
    applied: result.applied,
    operator: presentView(result.operator),
    ...(result.proposal && { proposal: presentProposal(result.proposal) }),
  });

async function invite(request: RouteRequest<'operators'>) {
  const body = parseBody(request.event, InviteOperatorRequestSchema);
  return changed(201, await service(request).invite(request.principal(), body));
}

async function grant(request: RouteRequest<'operators'>) {
  const body = parseBody(request.event, OperatorGroupsRequestSchema);
  const result = await service(request).grant(request.principal(), usernameOf(request), body);
  return result.applied ? changed(200, result) : changed(202, result);
}

async function revoke(request: RouteRequest<'operators'>) {
  const body = parseBody(request.event, OperatorGroupsRequestSchema);
  return changed(200, await service(request).revoke(request.principal(), usernameOf(request), body));
}

async function disable(request: RouteRequest<'operators'>) {
  const { reason } = parseBody(request.event, OperatorReasonRequestSchema);
  return changed(200, await service(request).disable(request.principal(), usernameOf(request), reason));
}

async function enable(request: RouteRequest<'operators'>) {
  const { reason } = parseBody(request.event, OperatorReasonRequestSchema);
  const result = await service(request).enable(request.principal(), usernameOf(request), reason);
  return result.applied ? changed(200, result) : changed(202, result);
}

async function confirm(request: RouteRequest<'operators'>) {
  parseBody(request.event, z.strictObject({}), {});
  return changed(
    200,
    await service(request).confirm(request.principal(), usernameOf(request), proposalIdOf(request)),
  );
}

async function cancel(request: RouteRequest<'operators'>) {
  const { reason } = parseBody(request.event, OperatorReasonRequestSchema);
  return changed(
    200,
    await service(request).cancel(request.principal(), usernameOf(request), proposalIdOf(request), reason),
  );
}

const CHANGE_PROBLEMS = [
  'validation',
  'not-found',
  'invalid-transition',
  'concurrent-modification',
  'operator-change-forbidden',
  'user-pool-error',
  'not-configured',
] as const;

const changeAnswer = (description: string) => ({
  200: { description, schema: OperatorChangeResponseSchema },
});
const proposedAnswer = {
  202: {
    description: 'proposed: it gives access, so it waits for a second admin to confirm it',
    schema: OperatorChangeResponseSchema,
  },
};

export const operatorRoutes: readonly Route<Answers, 'operators'>[] = [
  route({
    method: 'GET',
    path: '/operators',
    operationId: 'listOperators',
    summary: 'Every operator of the user pool with their groups and whether they may sign in (admins only)',
    cli: {
      words: ['operators', 'list'],
      summary: 'every operator of the user pool, their groups and whether they may sign in (admins)',
    },
    role: 'admin',
    responses: {
      200: {
        description: 'every operator with their groups and whether they may sign in',
        schema: OperatorListSchema,
      },
    },
    problems: ['user-pool-error', 'not-configured'],
    handler: listOperators,
  }),
  route({
    method: 'POST',
    path: '/operators',
    operationId: 'inviteOperator',
    summary:
      'Invite an operator (the pool e-mails a temporary password) into groups: viewer at once; a group that moves money (requester, approver, admin) is proposed, for a second admin to confirm',
    request: { body: { schema: InviteOperatorRequestSchema } },
    cli: {
      words: ['operators', 'invite'],
      summary:
        'invite --username NAME --email ADDRESS --groups viewer,requester --reason TEXT (a group that moves money waits for a second admin)',
      bodyFlags: ['username', 'email', 'groups', 'reason'],
      listFlags: ['groups'],
    },
    role: 'admin',
    responses: {
      201: {
        description:
          'invited (the pool e-mails a temporary password); viewer granted at once, a group that moves money proposed for a second admin',
        schema: OperatorChangeResponseSchema,
      },
    },
    problems: [...CHANGE_PROBLEMS],
    handler: invite,
  }),
  route({
    method: 'GET',
    path: '/operators/{username}',
    operationId: 'getOperator',
    summary:
      'An operator, the changes of their access waiting for a second admin, and their audit (who, when, from → to, why)',
    request: { params: { username: OperatorUsernamePathSchema } },
    cli: {
      words: ['operators', 'get'],
      summary: 'an operator, what waits for a second admin, and their audit',
    },
    role: 'admin',
    responses: {
      200: {
        description: 'the operator, what waits for a second admin, and their audit',
        schema: OperatorResponseSchema,
      },
    },
    problems: ['not-found', 'user-pool-error', 'not-configured'],
    handler: getOperator,
  }),
  route({
    method: 'POST',
    path: '/operators/{username}/grant',
    operationId: 'grantOperatorGroups',
    summary:
      'Add groups: viewer alone at once (200); a group that moves money is proposed (202) for another admin to confirm. Never your own',
    request: {
      params: { username: OperatorUsernamePathSchema },
      body: { schema: OperatorGroupsRequestSchema },
    },
    cli: {
      words: ['operators', 'grant'],
      summary:
        'add --groups (viewer at once; requester, approver or admin proposed for a second admin) --reason TEXT',
      bodyFlags: ['groups', 'reason'],
      listFlags: ['groups'],
    },
    role: 'admin',
    responses: {
      200: { description: 'granted at once (viewer only)', schema: OperatorChangeResponseSchema },
      202: proposedAnswer[202],
    },
    problems: [...CHANGE_PROBLEMS],
    handler: grant,
  }),
  route({
    method: 'POST',
    path: '/operators/{username}/revoke',
    operationId: 'revokeOperatorGroups',
    summary: 'Remove groups at once: one admin may reduce access. Never your own',
    request: {
      params: { username: OperatorUsernamePathSchema },
      body: { schema: OperatorGroupsRequestSchema },
    },
    cli: {
      words: ['operators', 'revoke'],
      summary: 'remove --groups at once --reason TEXT',
      bodyFlags: ['groups', 'reason'],
      listFlags: ['groups'],
    },
    role: 'admin',
    responses: changeAnswer('the groups removed at once'),
    problems: [...CHANGE_PROBLEMS],
    handler: revoke,
  }),
  route({
    method: 'POST',
    path: '/operators/{username}/disable',
    operationId: 'disableOperator',
    summary:
      'Disable at once: no sign-in, and every token or credential they still hold is refused (401). Never yourself',
    request: {
      params: { username: OperatorUsernamePathSchema },
      body: { schema: OperatorReasonRequestSchema },
    },
    cli: {
      words: ['operators', 'disable'],
      summary: 'disable at once: no sign-in, every token they hold refused (--reason)',
      bodyFlags: ['reason'],
    },
    role: 'admin',
    responses: changeAnswer('disabled at once: no sign-in, and every token they hold refused'),
    problems: [...CHANGE_PROBLEMS],
    handler: disable,
  }),
  route({
    method: 'POST',
    path: '/operators/{username}/enable',
    operationId: 'enableOperator',
    summary:
      'Enable again: at once (200) for one who holds no group that moves money, else proposed (202) for a second admin',
    request: {
      params: { username: OperatorUsernamePathSchema },
      body: { schema: OperatorReasonRequestSchema },
    },
    cli: {
      words: ['operators', 'enable'],
      summary: 'enable again (--reason); one holding a group that moves money waits for a second admin',
      bodyFlags: ['reason'],
    },
    role: 'admin',
    responses: {
      200: {
        description: 'enabled at once (they hold no group that moves money)',
        schema: OperatorChangeResponseSchema,
      },
      202: proposedAnswer[202],
    },
    problems: [...CHANGE_PROBLEMS],
    handler: enable,
  }),
  route({
    method: 'POST',
    path: '/operators/{username}/proposals/{proposalId}/confirm',
    operationId: 'confirmOperatorProposal',
    summary:
      'A second admin applies a pending grant or enable: never the admin who proposed it (by stable identity), nor the operator themselves',
    request: { params: { username: OperatorUsernamePathSchema, proposalId: ProposalIdPathSchema } },
    cli: {
      words: ['operators', 'confirm'],
      summary: "confirm another admin's proposal (a grant or an enable) as the second admin",
    },
    role: 'admin',
    responses: changeAnswer('confirmed by a second admin and in force'),
    problems: [...CHANGE_PROBLEMS],
    handler: confirm,
  }),
  route({
    method: 'POST',
    path: '/operators/{username}/proposals/{proposalId}/cancel',
    operationId: 'cancelOperatorProposal',
    summary: 'Any admin withdraws a pending grant or enable; nothing is given',
    request: {
      params: { username: OperatorUsernamePathSchema, proposalId: ProposalIdPathSchema },
      body: { schema: OperatorReasonRequestSchema },
    },
    cli: {
      words: ['operators', 'cancel'],
      summary: 'withdraw a proposal nobody confirmed yet (--reason)',
      bodyFlags: ['reason'],
    },
    role: 'admin',
    responses: changeAnswer('withdrawn: nothing was given'),
    problems: [...CHANGE_PROBLEMS],
    handler: cancel,
  }),
];
