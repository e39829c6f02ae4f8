import { buildOpenApiDocument } from '../openapi.js';
import type { Route } from '../router.js';

let openApi: ReturnType<typeof buildOpenApiDocument> | undefined;

export const metaRoutes: readonly Route[] = [
  { method: 'GET', path: '/health', handler: async () => ({ status: 200, body: { status: 'ok' } }) },
  {
    method: 'GET',
    path: '/openapi.json',
    handler: async () => {
      openApi ??= buildOpenApiDocument();
      return { status: 200, body: openApi };
    },
  },
];
