import { deepHealth } from '../../runtime/index.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { parseQuery } from '../request.js';
import { DeepHealthFailedSchema, HealthResponseSchema } from '../responses/meta.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';

export const HealthQuerySchema = z.lazy(() =>
  z.strictObject({ deep: z.optional(z.enum(['true', 'false'])) }),
);

/**
 * GET /health: cheap (no I/O) unless `deep=true`, which reads the table and calls the provider once and answers
 * 503 naming what failed.
 */
async function health(request: RouteRequest<'payouts' | 'provider'>) {
  const { deep } = parseQuery(request.event, HealthQuerySchema);
  if (deep !== 'true') return reply(200, { status: 'ok' as const });
  const result = await deepHealth(request.ctx);
  // A check's detail may quote the provider or the SDK: clipped to the answer's maximum.
  const checks = {
    table: checkOf(result.checks.table),
    provider: checkOf(result.checks.provider),
  };
  if (result.status === 'ok') return reply(200, { status: result.status, checks });
  return reply(503, { status: result.status, checks });
}

const checkOf = (check: { status: 'ok' } | { status: 'failed'; detail: string }) =>
  check.status === 'ok' ? check : { status: check.status, detail: clipText(check.detail, FIELD_MAXIMA.text) };

export const healthRoutes: readonly Route<Answers, 'payouts' | 'provider'>[] = [
  route({
    method: 'GET',
    path: '/health',
    operationId: 'health',
    summary:
      'Cheap liveness; with deep=true, one table read and one provider read call, 503 naming what failed',
    request: { query: HealthQuerySchema },
    cli: {
      words: ['health', 'check'],
      summary: 'liveness; --deep reads the table and calls the provider once',
    },
    role: 'viewer',
    responses: {
      200: {
        description: 'healthy (with deep=true: the table and the provider answered)',
        schema: HealthResponseSchema,
      },
      503: {
        description: 'deep check failed: each check says what to look at',
        schema: DeepHealthFailedSchema,
      },
    },
    problems: ['validation'],
    handler: health,
  }),
];
