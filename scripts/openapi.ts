/** `npm run openapi`: writes docs/openapi.json from the zod schemas that validate requests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildOpenApiDocument } from '../lib/api/openapi.js';

const docs = resolve(import.meta.dirname, '..', 'docs');
mkdirSync(docs, { recursive: true });
writeFileSync(join(docs, 'openapi.json'), `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${join(docs, 'openapi.json')}`);
