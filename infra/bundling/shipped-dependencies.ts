import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';

/**
 * Parts of the named dependencies that a Lambda of this project can never reach, each replaced in the bundle
 * by a module that throws a clear error should it ever be reached. esbuild's `alias` cannot do this: undici
 * loads these files by relative `require`, which only an `onResolve` plugin sees.
 */
export const NOT_SHIPPED = [
  {
    /** undici's non-SIMD llhttp build (70 KB): the fallback for a Node that cannot compile wasm SIMD. */
    specifier: 'undici/lib/llhttp/llhttp-wasm.js',
    path: /[\\/]undici[\\/]lib[\\/]llhttp[\\/]llhttp-wasm\.js$/,
    what: "undici's non-SIMD HTTP/1.1 parser (llhttp-wasm.js)",
    why: 'Lambda nodejs22.x compiles the SIMD build (wasm SIMD is on by default since Node 16.4, on x86_64 and arm64), so the fallback is never loaded',
    /** Required at the moment it is needed (lazyllhttp, after the SIMD build failed to compile): throw there. */
    shape: 'throws-on-load',
  },
  {
    /** HTTP/2 (10 KB): only used when a socket negotiates h2 by ALPN, which undici offers only with allowH2. */
    specifier: 'undici/lib/dispatcher/client-h2.js',
    path: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/,
    what: "undici's HTTP/2 client (client-h2.js)",
    why: 'the provider transport never sets allowH2, so no socket negotiates h2',
    /** client.js requires it at load, so the stub must load and throw only when called. */
    shape: 'function-throws-on-call',
  },
  {
    /** web/fetch + webidl (~40 KB): client-h1 requires body.js lazily, only to send a FormData body. */
    specifier: 'undici/lib/web/fetch/body.js',
    path: /[\\/]undici[\\/]lib[\\/]web[\\/]fetch[\\/]body\.js$/,
    what: "undici's fetch body encoder (web/fetch/body.js)",
    why: 'the provider transport sends JSON strings only, never FormData',
    shape: 'throws-on-load',
  },
  {
    /** Event-stream (de)serialisation (14 KB), loaded by dynamic import from the protocol when an operation streams. */
    specifier: '@smithy/core/event-streams',
    path: /^@smithy\/core\/event-streams$/,
    what: "the AWS SDK's event-stream codec (@smithy/core/event-streams)",
    why: 'no operation of DynamoDB, Secrets Manager or EventBridge that the functions call uses event streams',
    shape: 'throws-on-load',
  },
  {
    /** The pure-JS SHA-256 (3 KB): Sha256Node falls back to it only where node:crypto has no sha256. */
    specifier: '@smithy/core/dist-es/submodules/checksum/sha256/Sha256Js.js',
    path: /[\\/]@smithy[\\/]core[\\/]dist-es[\\/]submodules[\\/]checksum[\\/]sha256[\\/]Sha256Js\.js$/,
    what: "the AWS SDK's pure-JS SHA-256 (Sha256Js)",
    why: 'Node on Lambda has node:crypto, which the SDK uses instead',
    /** Sha256Node imports it by name at load: the stub exports the class, which throws when constructed. */
    shape: 'esm-class-throws-on-construct',
    exportName: 'Sha256Js',
    reach: "const { Sha256Js } = await import('@smithy/core/checksum'); new Sha256Js();",
  },
  {
    /** Adaptive retry and its client-side rate limiter (3 KB): built only for retryMode `adaptive`. */
    specifier: '@smithy/core/dist-es/submodules/retry/util-retry/AdaptiveRetryStrategy.js',
    path: /[\\/]@smithy[\\/]core[\\/]dist-es[\\/]submodules[\\/]retry[\\/]util-retry[\\/]AdaptiveRetryStrategy\.js$/,
    what: "the AWS SDK's adaptive retry strategy (AdaptiveRetryStrategy)",
    why: "the functions use the SDK's standard retry mode; neither they nor the stack set AWS_RETRY_MODE=adaptive",
    shape: 'esm-class-throws-on-construct',
    exportName: 'AdaptiveRetryStrategy',
    reach:
      "const { AdaptiveRetryStrategy } = await import('@smithy/core/retry'); new AdaptiveRetryStrategy(async () => 3);",
  },
  {
    /** The EC2 instance-metadata region look-up (1 KB): the SDK's last resort when no region is configured. */
    specifier:
      '@smithy/core/dist-es/submodules/config/config-resolver/regionConfig/getInstanceMetadataRegion.js',
    path: /[\\/]@smithy[\\/]core[\\/]dist-es[\\/]submodules[\\/]config[\\/]config-resolver[\\/]regionConfig[\\/]getInstanceMetadataRegion\.js$/,
    what: "the AWS SDK's instance-metadata region look-up (getInstanceMetadataRegion)",
    why: 'Lambda always sets AWS_REGION, and Lambda has no instance-metadata endpoint',
    shape: 'esm-async-function-rejects',
    exportName: 'getInstanceMetadataRegion',
    reach:
      "const { NODE_REGION_CONFIG_OPTIONS } = await import('@smithy/core/config'); await NODE_REGION_CONFIG_OPTIONS.default();",
  },
  {
    /** S3's endpoint parameter rules (1 KB): applied only to a client whose service is S3. */
    specifier: '@smithy/core/dist-es/submodules/endpoints/middleware-endpoint/service-customizations/s3.js',
    path: /[\\/]@smithy[\\/]core[\\/]dist-es[\\/]submodules[\\/]endpoints[\\/]middleware-endpoint[\\/]service-customizations[\\/]s3\.js$/,
    what: "the AWS SDK's S3 endpoint rules (resolveParamsForS3)",
    why: 'no function has an S3 client',
    shape: 'esm-async-function-rejects',
    exportName: 'resolveParamsForS3',
    /** Re-exported by the module's index, so they must exist; nothing the functions load uses them. */
    alsoExports: ['DOT_PATTERN', 'S3_HOSTNAME_PATTERN', 'isArnBucketName', 'isDnsCompatibleBucketName'],
    reach:
      "const { resolveParams } = await import('@smithy/core/endpoints'); await resolveParams({}, undefined, { serviceId: 's3' });",
  },
] as const;

const NAMESPACE = 'not-shipped';
const SIMD_PARSER = /[\\/]undici[\\/]lib[\\/]llhttp[\\/]llhttp_simd-wasm\.js$/;

/** The code that takes a replaced module's place. */
function stubSource(entry: (typeof NOT_SHIPPED)[number]): string {
  const message = JSON.stringify(
    `${entry.what} is not in this bundle: ${entry.why} (infra/bundling/shipped-dependencies.ts).`,
  );
  switch (entry.shape) {
    case 'throws-on-load':
      return `throw new Error(${message});`;
    case 'function-throws-on-call':
      return `module.exports = function notShipped() { throw new Error(${message}); };`;
    case 'esm-class-throws-on-construct':
      return `export class ${entry.exportName} { constructor() { throw new Error(${message}); } }`;
    case 'esm-async-function-rejects':
      return [entry.exportName, ...('alsoExports' in entry ? entry.alsoExports : [])]
        .map((name) => `export const ${name} = async () => { throw new Error(${message}); };`)
        .join('\n');
  }
}

/**
 * The SDK's ES modules that NOT_SHIPPED replaces (loaded by relative import inside @smithy/core): only these
 * files, so esbuild calls the plugin for nothing else.
 */
const SMITHY_CORE_REPLACED = new RegExp(
  NOT_SHIPPED.filter((entry) => entry.specifier.startsWith('@smithy/core/dist-es/'))
    .map((entry) => entry.path.source)
    .join('|'),
);

/**
 * The file beside each bundle that carries undici (in the same directory as its `index.cjs`): undici's SIMD
 * HTTP parser as the raw wasm bytes (53 KB). undici embeds them as base64 text (71 KB); carried in the bundle
 * they were brotli-packed to stay under the size bound, and loading `node:zlib` and inflating them took about
 * 2 ms of the first provider connection in a fresh node (docs/cold-start.md). Read from this file, they take a
 * `readFileSync`, and the bundle is about 20 KB smaller. `writeSimdParser` puts the file there;
 * test/infra/bundles.test.ts proves the bundled transport speaks HTTP/1.1 with it.
 */
export const SIMD_PARSER_FILE = 'llhttp_simd.wasm';

/** The bundle's stand-in for undici's `llhttp_simd-wasm.js`: the same bytes, read from SIMD_PARSER_FILE. */
const SIMD_PARSER_FROM_FILE = [
  "'use strict';",
  // A bundle is CommonJS: __dirname is the directory Lambda unpacked it to.
  `module.exports = require('node:fs').readFileSync(require('node:path').join(__dirname, '${SIMD_PARSER_FILE}'));`,
].join('\n');

/** Whether a bundle (by its metafile inputs) carries undici's SIMD parser, and so reads SIMD_PARSER_FILE. */
export function carriesSimdParser(inputs: Readonly<Record<string, { bytesInOutput: number }>>): boolean {
  return Object.entries(inputs).some(
    ([input, { bytesInOutput }]) => SIMD_PARSER.test(input) && bytesInOutput > 0,
  );
}

/** Writes SIMD_PARSER_FILE into `dir`: the wasm bytes undici ships (decoded from its base64 text). */
export function writeSimdParser(dir: string): string {
  const file = join(dir, SIMD_PARSER_FILE);
  writeFileSync(file, simdParserBytes());
  return file;
}

function simdParserBytes(): Buffer {
  const source = readFileSync(
    createRequire(import.meta.url).resolve('undici/lib/llhttp/llhttp_simd-wasm.js'),
    'utf8',
  );
  const base64 = /const wasmBase64 = '([A-Za-z0-9+/=]+)'/.exec(source)?.[1];
  if (!base64)
    throw new Error(
      `no embedded wasm found in undici's llhttp_simd-wasm.js: has undici changed how it ships llhttp?`,
    );
  return Buffer.from(base64, 'base64');
}

/**
 * The esbuild plugin that applies NOT_SHIPPED, has undici's SIMD parser read from its file and trims the
 * clients' package.json.
 */
export function shippedDependencies(): Plugin {
  return {
    name: 'shipped-dependencies',
    setup(build) {
      build.onResolve({ filter: /^@smithy\/core\/event-streams$/ }, (args) => {
        const index = NOT_SHIPPED.findIndex((entry) => entry.path.test(args.path));
        return { path: String(index), namespace: NAMESPACE };
      });
      build.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]/ }, (args) => {
        if (SIMD_PARSER.test(args.path)) return { contents: SIMD_PARSER_FROM_FILE, loader: 'js' };
        const entry = NOT_SHIPPED.find((candidate) => candidate.path.test(args.path));
        return entry ? { contents: stubSource(entry), loader: 'js' } : undefined;
      });
      build.onLoad({ filter: SMITHY_CORE_REPLACED }, (args) => {
        const entry = NOT_SHIPPED.find((candidate) => candidate.path.test(args.path));
        return entry ? { contents: stubSource(entry), loader: 'js' } : undefined;
      });
      // A client reads only `version` from its package.json (the user agent); the rest was ~2 KB per client.
      build.onLoad({ filter: /[\\/]@aws-sdk[\\/]client-[^\\/]+[\\/]package\.json$/ }, (args) => {
        const { name, version } = JSON.parse(readFileSync(args.path, 'utf8')) as {
          name: string;
          version: string;
        };
        return { contents: JSON.stringify({ name, version }), loader: 'json' };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const entry = NOT_SHIPPED[Number(args.path)];
        if (!entry) throw new Error(`unknown replaced module ${args.path}`);
        return { contents: stubSource(entry), loader: 'js' };
      });
    },
  };
}
