import openApiDocument from '../../../docs/openapi.json' with { type: 'json' };
import type * as z from '../../shared/zod.js';
import { OpenApiDocumentSchema } from '../responses/meta.js';
import { type Answers, type Route, reply, route } from '../router.js';

/**
 * GET /openapi.json answers the committed document (docs/openapi.json, which a test holds equal to the one the
 * routes generate, lib/api/openapi.ts), not one generated here: generating it needs every route's declaration,
 * and so every route's code, in the function that serves it.
 */
let openApi: z.output<typeof OpenApiDocumentSchema> | undefined;

export const openApiRoutes: readonly Route<Answers, never>[] = [
  route({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'openapi',
    cli: { words: ['api', 'contract'], summary: 'the OpenAPI document' },
    role: 'viewer',
    storesNothing: true,
    responses: { 200: { description: 'this document', schema: OpenApiDocumentSchema } },
    problems: [],
    handler: async () => {
      openApi ??= OpenApiDocumentSchema.parse(openApiDocument);
      return reply(200, openApi);
    },
  }),
];
