/**
 * `npm run openapi`: writes docs/openapi.json and the CLI's command table (lib/cli/commands.generated.ts), both
 * from the routes (lib/api/routes/): their schemas, words and CLI names.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { apiRoutes } from '../lib/api/index.js';
import { buildOpenApiDocument } from '../lib/api/openapi.js';
import { commandsOf, commandTableSource } from '../lib/cli/command-table.js';

const root = resolve(import.meta.dirname, '..');
const written = {
  'docs/openapi.json': `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`,
  'lib/cli/commands.generated.ts': commandTableSource(commandsOf(apiRoutes)),
};
for (const [file, content] of Object.entries(written)) {
  writeFileSync(resolve(root, file), content);
  console.log(`wrote ${file}`);
}
