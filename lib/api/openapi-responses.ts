import * as z from '../shared/zod.js';
import { PROBLEM_SLUGS, PROBLEM_TYPES, type ProblemSlug, problemType } from './problem-types.js';
import { ApprovalsPageSchema, WaitingApprovalSchema } from './responses/approvals.js';
import {
  AppliedCorrectionSchema,
  BulkItemDetailSchema,
  BulkItemPageSchema,
  BulkItemResponseSchema,
  CorrectionAuditSchema,
  HeldCorrectionSchema,
  PendingCorrectionSchema,
} from './responses/bulk-item.js';
import { PrincipalSchema } from './responses/common.js';
import {
  CorrectionJobItemPageSchema,
  CorrectionJobItemSchema,
  CorrectionJobPageSchema,
  CorrectionJobSchema,
} from './responses/correction-job.js';
import {
  DeadLetterPageSchema,
  DeadLetterResponseSchema,
  ReplayDeliveredSchema,
  ReplayRefusedSchema,
} from './responses/dead-letter.js';
import { DeepHealthFailedSchema, HealthResponseSchema, OpenApiDocumentSchema } from './responses/meta.js';
import {
  BeneficiaryResponseSchema,
  ControlsResponseSchema,
  PayoutDetailSchema,
  PayoutPageSchema,
  PayoutResponseSchema,
} from './responses/payout.js';
import { ProblemSchema } from './responses/problem.js';
import {
  ProviderSettlementPageSchema,
  ProviderStorePageSchema,
  ProviderWalletTransactionPageSchema,
} from './responses/provider.js';
import {
  RecurringPayoutPageSchema,
  RecurringPayoutResponseSchema,
  RecurringPayoutViewSchema,
} from './responses/recurring-payout.js';
import { RefundDetailSchema, RefundPageSchema, RefundResponseSchema } from './responses/refund.js';
import {
  FutureMovementViewSchema,
  ProviderScheduleViewSchema,
  ProviderSyncSchema,
} from './responses/schedules.js';
import {
  PayOutDecidedSchema,
  PayOutDeferredSchema,
  SettlementDecisionResponseSchema,
  SettlementDeferralResponseSchema,
  SettlementListingSchema,
  SettlementPageSchema,
} from './responses/settlement.js';
import type { Route } from './router.js';

type JsonSchema = Record<string, unknown>;

/**
 * The response schemas that get a name in `components.schemas`. A route's schema not named here is still
 * documented, under `<operationId><status>`.
 */
const NAMED_SCHEMAS: Record<string, z.ZodMiniType> = {
  Principal: PrincipalSchema,
  Beneficiary: BeneficiaryResponseSchema,
  Problem: ProblemSchema,
  Payout: PayoutResponseSchema,
  PayoutDetail: PayoutDetailSchema,
  PayoutPage: PayoutPageSchema,
  Controls: ControlsResponseSchema,
  Refund: RefundResponseSchema,
  RefundDetail: RefundDetailSchema,
  RefundPage: RefundPageSchema,
  RecurringPayout: RecurringPayoutResponseSchema,
  RecurringPayoutView: RecurringPayoutViewSchema,
  RecurringPayoutPage: RecurringPayoutPageSchema,
  SettlementDecision: SettlementDecisionResponseSchema,
  SettlementDeferral: SettlementDeferralResponseSchema,
  SettlementListing: SettlementListingSchema,
  SettlementPage: SettlementPageSchema,
  SettlementPayOutDecided: PayOutDecidedSchema,
  SettlementPayOutDeferred: PayOutDeferredSchema,
  BulkItem: BulkItemResponseSchema,
  BulkItemPage: BulkItemPageSchema,
  BulkItemDetail: BulkItemDetailSchema,
  BulkCorrectionApplied: AppliedCorrectionSchema,
  BulkCorrectionHeld: HeldCorrectionSchema,
  BulkCorrectionPending: PendingCorrectionSchema,
  BulkCorrectionAudit: CorrectionAuditSchema,
  CorrectionJob: CorrectionJobSchema,
  CorrectionJobPage: CorrectionJobPageSchema,
  CorrectionJobItem: CorrectionJobItemSchema,
  CorrectionJobItemPage: CorrectionJobItemPageSchema,
  DeadLetter: DeadLetterResponseSchema,
  DeadLetterPage: DeadLetterPageSchema,
  DeadLetterReplayed: ReplayDeliveredSchema,
  DeadLetterReplayRefused: ReplayRefusedSchema,
  WaitingApproval: WaitingApprovalSchema,
  ApprovalsPage: ApprovalsPageSchema,
  ProviderSync: ProviderSyncSchema,
  ProviderScheduleView: ProviderScheduleViewSchema,
  FutureMovementView: FutureMovementViewSchema,
  ProviderSettlementPage: ProviderSettlementPageSchema,
  ProviderWalletTransactionPage: ProviderWalletTransactionPageSchema,
  ProviderStorePage: ProviderStorePageSchema,
  Health: HealthResponseSchema,
  DeepHealthFailed: DeepHealthFailedSchema,
  OpenApiDocument: OpenApiDocumentSchema,
};

const COMPONENTS = '#/components/schemas/';

/** A generated schema without the keywords that only a standalone document carries. */
function bare(schema: unknown): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = z.record(z.string(), z.unknown()).parse(schema);
  return rest;
}

/** One problem type as a schema: a `Problem` with that `type` and one of its statuses. */
function problemTypeSchema(slug: ProblemSlug): z.ZodMiniType {
  const statuses = PROBLEM_TYPES[slug].statuses.map((status) => z.literal(status));
  return z
    .intersection(
      ProblemSchema,
      z.looseObject({
        type: z.literal(problemType(slug)),
        status: statuses.length === 1 ? (statuses[0] as z.ZodMiniType) : z.union(statuses),
      }),
    )
    .check(z.describe(PROBLEM_TYPES[slug].meaning));
}

/**
 * The problem types a route may answer, by status (`unauthenticated`, `forbidden`, `internal` and
 * `request-deadline` are implied everywhere: the router checks the caller and their role before any route).
 */
function problemsByStatus(route: Route): Map<number, ProblemSlug[]> {
  const byStatus = new Map<number, ProblemSlug[]>();
  const implied: ProblemSlug[] = ['unauthenticated', 'forbidden', 'request-deadline', 'internal'];
  for (const slug of new Set<ProblemSlug>([...route.problems, ...implied])) {
    for (const status of PROBLEM_TYPES[slug].statuses) {
      byStatus.set(status, [...(byStatus.get(status) ?? []), slug]);
    }
  }
  return byStatus;
}

/**
 * Converts every route's response schemas at once, so a schema used in many places (a payout, a principal)
 * is one component referenced everywhere.
 */
export function generateSchemas(routes: readonly Route[]) {
  const registry = z.registry<{ id: string }>();
  const named = new Map<z.ZodMiniType, string>();
  const register = (schema: z.ZodMiniType, id: string): string => {
    const known = named.get(schema);
    if (known) return known;
    registry.add(schema, { id });
    named.set(schema, id);
    return id;
  };
  for (const [id, schema] of Object.entries(NAMED_SCHEMAS)) register(schema, id);
  const problemSchemas = new Map(
    PROBLEM_SLUGS.map((slug) => {
      const schema = problemTypeSchema(slug);
      register(schema, `Problem.${slug}`);
      return [slug, schema] as const;
    }),
  );
  // Every route's schemas are registered before the one conversion; operations refer to them by id. The
  // problems a route answers with one status are a union of problem types, inlined in the operation.
  const answerIds = new Map<Route, Map<number, string>>();
  const problemIds = new Map<Route, Map<number, { id: string; slugs: readonly ProblemSlug[] }>>();
  const inlined = new Set<string>();
  for (const route of routes) {
    const base = `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c?: string) => (c ?? '').toUpperCase())}`;
    answerIds.set(
      route,
      new Map(
        Object.entries(route.responses).map(([status, answer]) => [
          Number(status),
          register(answer.schema, `${base}${status}`),
        ]),
      ),
    );
    const problems = new Map<number, { id: string; slugs: readonly ProblemSlug[] }>();
    for (const [status, slugs] of problemsByStatus(route)) {
      const members = slugs.map((slug) => problemSchemas.get(slug) as z.ZodMiniType);
      const id =
        members.length === 1 ? `Problem.${slugs[0]}` : register(z.union(members), `${base}${status}Problems`);
      if (members.length > 1) inlined.add(id);
      problems.set(status, { id, slugs });
    }
    problemIds.set(route, problems);
  }
  const converted = z.toJSONSchema(registry, {
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `${COMPONENTS}${id}`,
  });
  const components = Object.fromEntries(
    Object.entries(converted.schemas)
      .filter(([id]) => !inlined.has(id))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, schema]) => [id, bare(schema)]),
  );
  const schemaOf = (id: string) =>
    inlined.has(id) ? bare(converted.schemas[id]) : { $ref: `${COMPONENTS}${id}` };

  /** The `responses` object of a route's operation: its JSON answers and its problems, by status. */
  function responsesOf(route: Route): Record<string, unknown> {
    const responses: Record<string, { description: string; content: Record<string, unknown> }> = {};
    for (const [status, answer] of Object.entries(route.responses)) {
      const id = answerIds.get(route)?.get(Number(status)) as string;
      responses[status] = {
        description: answer.description,
        content: { [answer.mediaType ?? 'application/json']: { schema: schemaOf(id) } },
      };
    }
    for (const [status, { id, slugs }] of problemIds.get(route) ?? []) {
      const key = String(status);
      const problem = { 'application/problem+json': { schema: schemaOf(id) } };
      const kinds = `problem: ${slugs.map((slug) => `\`${slug}\``).join(', ')}`;
      const answer = responses[key];
      responses[key] = answer
        ? { description: `${answer.description}; or a ${kinds}`, content: { ...answer.content, ...problem } }
        : { description: kinds, content: problem };
    }
    return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  }

  return { components, responsesOf };
}
