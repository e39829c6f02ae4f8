/**
 * `node --import tsx infra/bundling/cli.ts <handler> <outdir>`: builds one handler of `functions/` into
 * `<outdir>/index.cjs`, with its source map and the files it reads at run time (`BuiltHandler.runtimeFiles`).
 * The CDK construct runs it as the asset's local bundling step: CDK bundles synchronously, and esbuild runs
 * plugins only in its asynchronous API.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { BUNDLE_FILE, buildHandlers, handlerEntry } from './build-handler.js';

const [name, outdir] = process.argv.slice(2);
if (!name || !outdir) {
  console.error('usage: cli.ts <handler> <outdir>');
  process.exit(2);
}
// Built beside the asset, not in it, so the asset holds exactly the bundle, its map and its run-time files.
const scratch = mkdtempSync(join(tmpdir(), 'payout-bundle-'));
try {
  const built = await buildHandlers({ [name]: handlerEntry(name) }, scratch, { sourcemap: true });
  const bundle = built.get(name);
  if (!bundle) throw new Error(`no bundle for ${name}`);
  copyFileSync(bundle.file, join(outdir, BUNDLE_FILE));
  copyFileSync(`${bundle.file}.map`, join(outdir, `${BUNDLE_FILE}.map`));
  for (const file of bundle.runtimeFiles) copyFileSync(file, join(outdir, basename(file)));
  console.log(`${name}: ${BUNDLE_FILE} ${(bundle.bytes / 1024).toFixed(0)} KB`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
