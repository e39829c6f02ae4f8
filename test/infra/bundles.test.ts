import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  BUNDLE_FILE,
  BUNDLE_LIMIT_BYTES,
  type BuiltHandler,
  buildHandlers,
  handlerBuildOptions,
  handlerEntry,
  PROJECT_ROOT,
} from '../../infra/bundling/build-handler.js';
import { NOT_SHIPPED, SIMD_PARSER_FILE, writeSimdParser } from '../../infra/bundling/shipped-dependencies.js';
import { HANDLERS, type HandlerName, ProviderAccess } from '../../infra/handlers.js';
import { API_FUNCTIONS } from '../../lib/api/functions/index.js';

/**
 * Builds every handler with the build the CDK construct runs (infra/bundling/build-handler.ts) and loads each
 * bundle with `require()` from its `.cjs` file, as Lambda does, so a bundle that cannot load (a dependency esbuild
 * cannot inline, work at import that needs AWS) fails here instead of in Lambda. The bundles live outside the project, where
 * no node_modules can be found: like Lambda, they must carry everything, the AWS SDK included.
 */
const handlers = readdirSync(join(PROJECT_ROOT, 'functions'))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.replace(/\.ts$/, ''));
const outRoot = mkdtempSync(join(tmpdir(), 'payout-bundles-'));
/** Each handler's bundle, with what esbuild put into it by source path relative to the project. */
let bundles: Map<string, BuiltHandler>;

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
};
beforeAll(async () => {
  bundles = await buildHandlers(
    Object.fromEntries(handlers.map((name) => [name, handlerEntry(name)])),
    outRoot,
  );
}, 120_000);

afterAll(() => {
  rmSync(outRoot, { recursive: true, force: true });
});

/** A plain `node` (not the test runner, whose resolver would find the project's packages) requires the bundle. */
const LOAD = `const m = require(process.argv[1]); if (typeof m.handler !== 'function') { console.error('no handler export'); process.exit(3); }`;

describe('handler bundles', () => {
  it.each(handlers)(
    '%s bundles, and loads with require() in a bare node, with a handler function',
    (name) => {
      const file = bundles.get(name)?.file ?? '';
      expect(basename(file)).toBe(BUNDLE_FILE);
      const loaded = spawnSync(process.execPath, ['-e', LOAD, file], {
        cwd: outRoot,
        env: { PATH: process.env.PATH, ...lambdaEnvironment },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(loaded.stderr).not.toMatch(/Cannot find (package|module)|ERR_MODULE_NOT_FOUND/);
      expect(loaded.status, loaded.stderr).toBe(0);
    },
  );

  it.each([
    ['submit-payouts', [BUNDLE_FILE, `${BUNDLE_FILE}.map`, SIMD_PARSER_FILE]],
    ['api-docs', [BUNDLE_FILE, `${BUNDLE_FILE}.map`]],
  ])(
    'the asset the CDK construct bundles for %s holds %j',
    (name, files) => {
      // infra/bundling/cli.ts, as the construct's local bundling step runs it.
      const asset = mkdtempSync(join(outRoot, `asset-${name}-`));
      const bundled = spawnSync(
        process.execPath,
        ['--import', 'tsx', join(PROJECT_ROOT, 'infra', 'bundling', 'cli.ts'), name, asset],
        { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 60_000 },
      );
      expect(bundled.status, bundled.stderr).toBe(0);
      expect(readdirSync(asset).sort()).toEqual([...files].sort());
    },
    60_000,
  );

  it('a build esbuild warns about is refused: import.meta in a CommonJS bundle would be empty', async () => {
    const entry = join(outRoot, 'import-meta-entry.ts');
    writeFileSync(entry, 'export const handler = async () => import.meta.url;');
    await expect(buildHandlers({ 'import-meta': entry }, join(outRoot, 'refused'))).rejects.toThrow(
      /esbuild warned: "import\.meta" is not available with the "cjs" output format/,
    );
  });
});

describe('the routes in the api-* bundles', () => {
  // api-docs serves docs/openapi.json, which holds every summary by design.
  it.each(Object.entries(API_FUNCTIONS).filter(([name]) => name !== 'api-docs'))(
    "%s carries none of its routes' summaries, descriptions or CLI words: only the document and the CLI read them",
    (name, fn) => {
      const bundle = readFileSync(bundles.get(name)?.file ?? '', 'utf8');
      // What the router does read: an answer's description (a summary may repeat part of one).
      const answered = fn.routes.flatMap((route) =>
        Object.values(route.responses).map((answer) => answer.description),
      );
      const words = fn.routes.flatMap((route) =>
        [route.summary, route.description, route.cli.summary].filter(
          (text): text is string =>
            text !== undefined && text.length > 20 && !answered.some((said) => said.includes(text)),
        ),
      );
      expect(words.length).toBeGreaterThan(0);
      expect(words.filter((text) => bundle.includes(text))).toEqual([]);
    },
  );
});

/** Local tooling, the provider sandbox, benchmarks, scripts and tests never ship to Lambda. */
const NOT_FOR_LAMBDA = /^(lib\/local|lib\/sandbox|bench|scripts|test)\//;

describe('what the bundles carry', () => {
  it.each(handlers)('%s carries no local tooling, sandbox, benchmark, script or test code', (name) => {
    const foreign = Object.keys(bundles.get(name)?.inputs ?? {}).filter((input) =>
      NOT_FOR_LAMBDA.test(input),
    );
    expect(foreign).toEqual([]);
  });

  it('the check sees through the bundles: each one carries its own handler from functions/', () => {
    for (const name of handlers) {
      expect(Object.keys(bundles.get(name)?.inputs ?? {})).toContain(`functions/${name}.ts`);
    }
  });

  /**
   * Each bundle carries only its own path: the runtime every function builds is the table, the ledger
   * and the logger; the provider's connection, the payout engine's send path and the submission queue are built
   * on first use by the functions that call them (lib/runtime/provider-connection.ts, payout-engine.ts,
   * submissions.ts), and the ops API is one function per group of routes (lib/api/functions).
   */
  it.each(handlers)(
    `%s weighs at most ${BUNDLE_LIMIT_BYTES / 1024} KB (${BUNDLE_FILE}, minified)`,
    (name) => {
      const bytes = bundles.get(name)?.bytes ?? Number.POSITIVE_INFINITY;
      expect(bytes, `${name} is ${(bytes / 1024).toFixed(1)} KB`).toBeLessThanOrEqual(BUNDLE_LIMIT_BYTES);
    },
  );

  /**
   * Operations in files of their own, each in the bundles of the functions that run it and no other (bytes in
   * the output: a module merely imported, its code unused, weighs 0). The provider client's resources are built
   * by whoever calls them on one connection; the engine's, the recurrences' and the refunds' single-function
   * operations are not methods of a class every function carries.
   */
  /** The functions that send payouts or look them up at the provider (they ask for `payoutEngineOf`). */
  const PAYOUT_SENDERS = [
    'api-dead-letters',
    'api-payouts',
    'api-settlements',
    'payout-requested',
    'poll-settlements',
    'reconcile-payouts',
    'settlement-available',
    'submit-payouts',
    'sweep-due-payouts',
  ];
  const ONLY_IN = {
    'lib/provider/client.ts': ['api-operations'],
    'lib/provider/schemas/payment-link.ts': ['api-operations'],
    // Only the function that serves the provider's views (stores, terminals) reads a store's fields: the others'
    // modules that name them are left out, as every module no bundle uses is ("sideEffects": false).
    'lib/provider/schemas/store.ts': ['api-operations'],
    'lib/provider/schemas/virtual-account.ts': ['api-operations'],
    'lib/provider/schemas/bulk-payout.ts': ['api-corrections', 'api-operations', 'submit-payouts'],
    'lib/provider/schemas/payout.ts': ['api-operations', 'sync-provider-schedules'],
    'lib/provider/schemas/refund.ts': ['api-operations', 'sweep-due-payouts'],
    // The engine's send path (the gateway, the submission) only where payouts are sent or looked up
    // (lib/runtime/engines.ts): not the provider's views, health, refunds, corrections or recurrences.
    'lib/payouts/adapters/provider-payout-gateway.ts': PAYOUT_SENDERS,
    'lib/payouts/engine/submit-payout.ts': PAYOUT_SENDERS,
    // The submission queue where work is handed to the workers (and the workers' correction-job service).
    'lib/payouts/adapters/sqs-submission-queue.ts': [
      'api-corrections',
      'poll-settlements',
      'settlement-available',
      'submit-payouts',
      'sweep-due-payouts',
    ],
    'lib/payouts/engine/submit-requested.ts': ['submit-payouts'],
    'lib/payouts/engine/sweep.ts': ['sweep-due-payouts'],
    'lib/payouts/engine/dispatch.ts': ['sweep-due-payouts'],
    'lib/payouts/engine/resolve-as-paid.ts': ['api-payouts'],
    'lib/payouts/store/audit-trail.ts': ['api-payouts'],
    // The workers pace their sends by it, the reconciler its look-ups.
    'lib/payouts/store/dynamodb-rate-limiter.ts': ['reconcile-payouts', 'submit-payouts'],
    'lib/recurrence/recurrence-service.ts': ['api-recurrences'],
    'lib/refunds/refund-service.ts': ['api-operations'],
    'lib/refunds/refund-sender.ts': ['api-operations', 'sweep-due-payouts'],
    // The API's route code only in the function serving the route (lib/api/functions).
    'lib/api/routes/payouts.ts': ['api-payouts'],
    'lib/api/routes/recurring-payouts.ts': ['api-recurrences'],
    'lib/api/routes/refunds.ts': ['api-operations'],
    'lib/api/routes/bulk-payout-items.ts': ['api-corrections'],
    'lib/api/routes/instant-settlements.ts': ['api-settlements'],
    'lib/api/routes/dead-letters.ts': ['api-dead-letters'],
    'lib/api/routes/approvals.ts': ['api-recurrences'],
    'lib/api/routes/openapi-document.ts': ['api-docs'],
  } as const satisfies Record<string, readonly string[]>;

  it.each(Object.entries(ONLY_IN))('%s is in the bundles of %j only', (file, expected) => {
    const carrying = handlers.filter((name) => (bundles.get(name)?.inputs[file]?.bytesInOutput ?? 0) > 0);
    expect(carrying).toEqual(expected);
  });

  it('api-docs carries neither the AWS SDK nor undici: it builds no runtime (lib/api/functions/docs.ts)', () => {
    const inputs = Object.keys(bundles.get('api-docs')?.inputs ?? {});
    expect(inputs.filter((input) => /node_modules\/(@aws-sdk|@smithy|undici)\//.test(input))).toEqual([]);
    expect(inputs).not.toContain('lib/runtime/runtime.ts');
  });

  it.each(handlers)(
    '%s carries undici (its pool and SIMD HTTP parser) if and only if the stack lets it call the provider, and zod',
    (name) => {
      // What esbuild kept: a module imported but all of it unused weighs 0 bytes in the output.
      const inputs = Object.entries(bundles.get(name)?.inputs ?? {})
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([input]) => input);
      const callsProvider = HANDLERS[name as HandlerName].provider !== ProviderAccess.None;
      expect(inputs.some((input) => input.endsWith('undici/lib/dispatcher/pool.js'))).toBe(callsProvider);
      expect(inputs.some((input) => input.endsWith('undici/lib/llhttp/llhttp_simd-wasm.js'))).toBe(
        callsProvider,
      );
      // The parser's bytes are the file beside the bundle, written with it where the bundle reads it.
      const bundle = bundles.get(name);
      expect(bundle?.runtimeFiles).toEqual(
        callsProvider && bundle ? [join(dirname(bundle.file), SIMD_PARSER_FILE)] : [],
      );
      // The connection and the credentials' reader come with it, and go with it.
      expect(inputs.includes('lib/provider/connection.ts')).toBe(callsProvider);
      // The notifier reads its webhook's secret (URL and signing key) with the same client.
      const readsSecrets = callsProvider || 'notifies' in HANDLERS[name as HandlerName];
      expect(inputs.some((input) => input.includes('node_modules/@aws-sdk/client-secrets-manager/'))).toBe(
        readsSecrets,
      );
      expect(inputs.some((input) => input.includes('node_modules/zod/'))).toBe(true);
    },
  );
});

/**
 * Builds a probe script with the handlers' own build, so it sees what the bundles see; as an ES module (with the
 * `require` the CommonJS code inlined into it needs), for the top-level await of its script.
 */
async function buildProbe(file: string, contents: string): Promise<string> {
  const outfile = join(outRoot, file);
  await build({
    ...handlerBuildOptions({
      format: 'esm',
      banner: {
        // The CommonJS code inlined needs `require`, and `__dirname` to find the files beside the bundle.
        js: [
          "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
          "const __dirname = require('path').dirname(require('url').fileURLToPath(import.meta.url));",
        ].join(' '),
      },
    }),
    stdin: { contents, resolveDir: PROJECT_ROOT, loader: 'ts' },
    outfile,
    absWorkingDir: PROJECT_ROOT,
  });
  // As buildHandlers writes it beside a bundle that calls the provider.
  writeSimdParser(outRoot);
  return outfile;
}

function runNode(file: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [file], {
    cwd: outRoot,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('what the build leaves out of undici and the AWS SDK', () => {
  /** The provider transport, bundled, against a plain node:http server on loopback. */
  const TRANSPORT_PROBE = `
import { createServer } from 'node:http';
import { HttpTransport } from './lib/provider/http-transport.ts';
const seen = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => {
    seen.push({ version: req.httpVersion, method: req.method, url: req.url, body });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ echoed: body }));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const transport = new HttpTransport('http://127.0.0.1:' + server.address().port + '/v1');
const first = await transport.request({ method: 'POST', path: '/payouts', headers: { 'content-type': 'application/json' }, body: '{"amount":150}' });
const second = await transport.request({ method: 'GET', path: '/payouts/1', headers: { 'content-type': 'application/json' }, body: '{}' });
await transport.close();
server.close();
console.log(JSON.stringify({ seen, statuses: [first.status, second.status], bodies: [first.body, second.body] }));
`;

  it('the bundled undici transport talks HTTP/1.1 to a loopback server, with its SIMD parser', async () => {
    const probe = await buildProbe('transport-probe.mjs', TRANSPORT_PROBE);
    // UNDICI_NO_WASM_SIMD unset: undici compiles the SIMD parser, the only one bundled (the fallback throws).
    const run = runNode(probe);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      seen: [
        { version: '1.1', method: 'POST', url: '/v1/payouts', body: '{"amount":150}' },
        { version: '1.1', method: 'GET', url: '/v1/payouts/1', body: '{}' },
      ],
      statuses: [200, 200],
      bodies: ['{"echoed":"{\\"amount\\":150}"}', '{"echoed":"{}"}'],
    });
  });

  it('the SIMD parser read from the file beside the bundle is the bytes undici ships, and compiles on this Node', async () => {
    const probe = await buildProbe(
      'simd-probe.mjs',
      `import parser from 'undici/lib/llhttp/llhttp_simd-wasm.js';
import { createHash } from 'node:crypto';
new WebAssembly.Module(parser);
console.log(createHash('sha256').update(parser).digest('hex'));`,
    );
    const run = runNode(probe);
    expect(run.status, run.stderr).toBe(0);
    const { createRequire } = await import('node:module');
    const original: Buffer = createRequire(join(PROJECT_ROOT, 'package.json'))(
      'undici/lib/llhttp/llhttp_simd-wasm.js',
    );
    const { createHash } = await import('node:crypto');
    expect(run.stdout.trim()).toBe(createHash('sha256').update(original).digest('hex'));
  });

  it('without wasm SIMD, undici fails with the reason, not a missing module', async () => {
    const probe = await buildProbe(
      'no-simd-probe.mjs',
      `import { createServer } from 'node:http';
import { openPool } from './lib/provider/undici-pool.ts';
const server = createServer((_req, res) => res.end('{}'));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const pool = openPool('http://127.0.0.1:' + server.address().port, {});
try {
  await pool.request({ path: '/', method: 'GET' });
} catch (error) {
  console.log(error.message);
}
await pool.close().catch(() => undefined);
server.close();`,
    );
    // undici reads UNDICI_NO_WASM_SIMD=1 as "this Node cannot compile SIMD" and takes the fallback, which is not bundled.
    const run = runNode(probe, { UNDICI_NO_WASM_SIMD: '1' });
    expect(run.stdout).toMatch(/non-SIMD HTTP\/1\.1 parser \(llhttp-wasm\.js\) is not in this bundle/);
  });

  it.each(NOT_SHIPPED.map((entry) => [entry.what, entry] as const))(
    'reaching %s throws an error that names it and says why',
    async (_what, entry) => {
      // The SDK's replaced modules are internal to @smithy/core: reached the way the SDK reaches them.
      const reach =
        'reach' in entry
          ? entry.reach
          : entry.shape === 'function-throws-on-call'
            ? `const m = await import('${entry.specifier}'); (m.default ?? m)();`
            : `await import('${entry.specifier}');`;
      const probe = await buildProbe(`reach-${NOT_SHIPPED.indexOf(entry)}.mjs`, reach);
      const run = runNode(probe);
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain(`${entry.what} is not in this bundle: ${entry.why}`);
    },
  );
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
    await buildProbe('credentials-probe.mjs', PROBE);
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
