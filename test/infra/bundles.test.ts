import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS, PROJECT_ROOT } from '../../infra/constructs/payout-function.js';

/**
 * Builds every handler the way the NodejsFunction construct does and imports each bundle from a `.mjs`
 * file, so a bundle that cannot load (a missing createRequire banner, a dependency esbuild cannot inline,
 * work at import that needs AWS) fails here instead of in Lambda. The bundles live under `.cache/` so the
 * external `@aws-sdk/*` imports resolve from the project's node_modules, as they do from the Lambda runtime.
 */
const handlers = readdirSync(join(PROJECT_ROOT, 'functions'))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.replace(/\.ts$/, ''));
const outRoot = join(PROJECT_ROOT, '.cache', `infra-bundles-${process.pid}`);

/** What Lambda and the stack provide; handlers may read it at import. No real AWS is reached. */
const lambdaEnvironment = {
  AWS_REGION: 'eu-west-1',
  AWS_LAMBDA_FUNCTION_NAME: 'bundle-test',
  AWS_ACCESS_KEY_ID: 'bundle-test',
  AWS_SECRET_ACCESS_KEY: 'bundle-test',
  TABLE_NAME: 'payouts-bundle-test',
  PROVIDER_BASE_URL: 'https://api.provider.example',
  PROVIDER_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:provider-AbCdEf',
  EVENT_BUS_NAME: 'payouts-bundle-test',
  POWERTOOLS_DEV: 'false',
};
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const [key, value] of Object.entries(lambdaEnvironment)) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
  await build({
    entryPoints: Object.fromEntries(
      handlers.map((name) => [`${name}/index`, join(PROJECT_ROOT, 'functions', `${name}.ts`)]),
    ),
    outdir: outRoot,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    minify: true,
    sourcemap: false,
    format: BUNDLE_OPTIONS.format,
    target: BUNDLE_OPTIONS.target,
    platform: BUNDLE_OPTIONS.platform,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    external: [...BUNDLE_OPTIONS.external],
    banner: { js: BUNDLE_OPTIONS.banner },
    logLevel: 'silent',
  });
  // The package.json Lambda sees next to index.mjs is none; mark the folder ESM explicitly all the same.
  mkdirSync(outRoot, { recursive: true });
  writeFileSync(join(outRoot, 'package.json'), '{"type":"module"}');
}, 120_000);

afterAll(() => {
  rmSync(outRoot, { recursive: true, force: true });
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('handler bundles', () => {
  it.each(handlers)('%s bundles and loads as ESM with a handler function', async (name) => {
    const module: { handler?: unknown } = await import(pathToFileURL(join(outRoot, name, 'index.mjs')).href);
    expect(typeof module.handler).toBe('function');
  });
});
