import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUNDLE_OPTIONS, PROJECT_ROOT } from '../../infra/constructs/payout-function.js';

/**
 * Builds every handler the way the NodejsFunction construct does and imports each bundle from a `.mjs`
 * file, so a bundle that cannot load (a missing createRequire banner, a dependency esbuild cannot inline,
 * work at import that needs AWS) fails here instead of in Lambda. The bundles live outside the project, where
 * no node_modules can be found: like Lambda, they must carry everything, the AWS SDK included.
 */
const handlers = readdirSync(join(PROJECT_ROOT, 'functions'))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.replace(/\.ts$/, ''));
const outRoot = mkdtempSync(join(tmpdir(), 'payout-bundles-'));
/** What esbuild put into each handler's bundle, by source path relative to the project. */
let metafile: Metafile;

/** What Lambda and the stack provide; handlers may read it at import. No real AWS is reached. */
const lambdaEnvironment = {
  AWS_REGION: 'eu-west-1',
  AWS_LAMBDA_FUNCTION_NAME: 'bundle-test',
  AWS_ACCESS_KEY_ID: 'bundle-test',
  AWS_SECRET_ACCESS_KEY: 'bundle-test',
  TABLE_NAME: 'payouts-bundle-test',
  PROVIDER_BASE_URL: 'https://api.provider.example',
  PROVIDER_TOKEN_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:provider-token-AbCdEf',
  EVENT_BUS_NAME: 'payouts-bundle-test',
  POWERTOOLS_DEV: 'false',
};
beforeAll(async () => {
  ({ metafile } = await build({
    metafile: true,
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
    alias: { ...BUNDLE_OPTIONS.alias },
    banner: { js: BUNDLE_OPTIONS.banner },
    logLevel: 'silent',
  }));
  // The package.json Lambda sees next to index.mjs is none; mark the folder ESM explicitly all the same.
  mkdirSync(outRoot, { recursive: true });
  writeFileSync(join(outRoot, 'package.json'), '{"type":"module"}');
}, 120_000);

afterAll(() => {
  rmSync(outRoot, { recursive: true, force: true });
});

/** A plain `node` (not the test runner, whose resolver would find the project's packages) imports the bundle. */
const LOAD = `const m = await import(process.argv[1]); if (typeof m.handler !== 'function') { console.error('no handler export'); process.exit(3); }`;

describe('handler bundles', () => {
  it.each(handlers)('%s bundles and loads as ESM in a bare node, with a handler function', (name) => {
    const loaded = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', LOAD, pathToFileURL(join(outRoot, name, 'index.mjs')).href],
      {
        cwd: outRoot,
        env: { PATH: process.env.PATH, ...lambdaEnvironment },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(loaded.stderr).not.toMatch(/Cannot find (package|module)|ERR_MODULE_NOT_FOUND/);
    expect(loaded.status, loaded.stderr).toBe(0);
  });
});

/** Local tooling, the provider sandbox, benchmarks, scripts and tests never ship to Lambda. */
const NOT_FOR_LAMBDA = /^(lib\/local|lib\/sandbox|bench|scripts|test)\//;

describe('what the bundles carry', () => {
  it.each(handlers)('%s carries no local tooling, sandbox, benchmark, script or test code', (name) => {
    const output =
      metafile.outputs[
        Object.keys(metafile.outputs).find((path) => path.endsWith(`${name}/index.mjs`)) ?? ''
      ];
    expect(output, `no bundle for ${name}`).toBeDefined();
    const foreign = Object.keys(output?.inputs ?? {}).filter((input) => NOT_FOR_LAMBDA.test(input));
    expect(foreign).toEqual([]);
  });

  it('the check sees through the bundles: each one carries its own handler from functions/', () => {
    for (const name of handlers) {
      const output = Object.entries(metafile.outputs).find(([path]) =>
        path.endsWith(`${name}/index.mjs`),
      )?.[1];
      expect(Object.keys(output?.inputs ?? {})).toContain(`functions/${name}.ts`);
    }
  });
});

describe('AWS credentials in the bundles', () => {
  /** An AWS client given no credentials, bundled like the handlers: it gets the SDK's default provider. */
  const PROBE = `
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
const client = new DynamoDBClient({ region: 'us-east-1', endpoint: process.env.DYNAMODB_ENDPOINT, maxAttempts: 1 });
try {
  const output = await client.send(new ListTablesCommand({}));
  console.log(JSON.stringify({ listed: Array.isArray(output.TableNames) }));
} catch (error) {
  console.log(JSON.stringify({ listed: false, error: error.message }));
}`;
  const probe = join(outRoot, 'credentials-probe.mjs');

  beforeAll(async () => {
    await build({
      stdin: { contents: PROBE, resolveDir: PROJECT_ROOT, loader: 'ts' },
      outfile: probe,
      bundle: true,
      format: BUNDLE_OPTIONS.format,
      target: BUNDLE_OPTIONS.target,
      platform: BUNDLE_OPTIONS.platform,
      mainFields: [...BUNDLE_OPTIONS.mainFields],
      alias: { ...BUNDLE_OPTIONS.alias },
      banner: { js: BUNDLE_OPTIONS.banner },
      logLevel: 'silent',
    });
  }, 60_000);

  function runProbe(credentials: Record<string, string>): { listed: boolean; error?: string } {
    const run = spawnSync(process.execPath, [probe], {
      cwd: outRoot,
      env: {
        PATH: process.env.PATH,
        DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint'),
        // Should the substitution ever be lost, the SDK's own chain must still not reach for the metadata
        // endpoint, which is not on this machine; it then fails with another message, which the test tells apart.
        AWS_EC2_METADATA_DISABLED: 'true',
        ...credentials,
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  }

  it('takes the role credentials Lambda puts in the environment', () => {
    expect(runProbe({ AWS_ACCESS_KEY_ID: 'bundletest', AWS_SECRET_ACCESS_KEY: 'bundletest' })).toEqual({
      listed: true,
    });
  });

  it('fails at once without them, looking in no file and at no metadata endpoint', () => {
    const result = runProbe({ HOME: outRoot });
    expect(result.listed).toBe(false);
    expect(result.error).toMatch(/Unable to find environment variable credentials/);
  });
});
