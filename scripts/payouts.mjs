#!/usr/bin/env node
// The operators' CLI, `npx payouts …` (the package's bin) or `npm run ops -- …`: runs lib/cli through tsx.
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main } = await import('../lib/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
