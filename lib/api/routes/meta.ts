import * as z from '../../shared/zod.js';
import { deepHealth } from '../health.js';
import { buildOpenApiDocument } from '../openapi.js';
import { parseQuery } from '../request.js';
import type { Route, RouteRequest } from '../router.js';

const HealthQuerySchema = z.strictObject({ deep: z.optional(z.enum(['true', 'false'])) });

/**
 * GET /health: cheap (no I/O) unless `deep=true`, which reads the table and calls the provider once and answers
 * 503 naming what failed.
 */
async function health(request: RouteRequest) {
  const { deep } = parseQuery(request.event, HealthQuerySchema);
  if (deep !== 'true') return { status: 200, body: { status: 'ok' } };
  const result = await deepHealth(request.ctx);
  return { status: result.status === 'ok' ? 200 : 503, body: result };
}

let openApi: ReturnType<typeof buildOpenApiDocument> | undefined;

export const metaRoutes: readonly Route[] = [
  { method: 'GET', path: '/health', handler: health },
  {
    method: 'GET',
    path: '/openapi.json',
    handler: async () => {
      openApi ??= buildOpenApiDocument();
      return { status: 200, body: openApi };
    },
  },
];
