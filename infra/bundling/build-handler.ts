import { dirname, join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { routeDocsLeftOut } from './route-docs.js';
import { carriesSimdParser, shippedDependencies, writeSimdParser } from './shipped-dependencies.js';

/** The project root: `functions/`, `package-lock.json` and `tsconfig.json` live there. */
export const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

/**
 * The file each bundle is written to, and Lambda loads: the runtime loads a `.cjs` handler with `require()` (its
 * UserFunction.js tries `.js`, then `.mjs` with `import()`, then `.cjs`), whatever package.json says.
 */
export const BUNDLE_FILE = 'index.cjs';

/** The most a function's bundle (its index.cjs, minified, everything it imports inlined) may weigh. */
export const BUNDLE_LIMIT_BYTES = 450 * 1024;

/**
 * esbuild settings of every Lambda bundle. One build (`buildHandlers`) serves the CDK construct, the bundle
 * test and the cold-start benchmark, so what is tested and measured is what ships.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  minify: true,
  /**
   * CommonJS, loaded with `require()`: the same minified bundle as an ES module loaded with `import()` took about
   * 2 ms more to import (27-29 against 25-26 ms, alternating `BENCH_ONLY=cold-start` runs), the ES module
   * loader's asynchronous steps, and needed a `createRequire` banner for the CommonJS code esbuild inlines. No
   * shipped code uses top-level await or `import.meta` (esbuild refuses the one and warns on the other).
   */
  format: 'cjs',
  target: 'node22',
  platform: 'node',
  outExtension: { '.js': '.cjs' },
  /** The ES module builds of the SDK, which esbuild can tree-shake; their CommonJS builds it cannot. */
  mainFields: ['module', 'main'],
  /**
   * The AWS SDK is bundled, not taken from the runtime. The runtime's copy is CommonJS, which Node has to load
   * file by file and lex for named exports on every cold start; bundled from its ESM build, only the commands
   * used are kept and it loads in one parse: the sweep's import went from ~125 ms to ~80 ms (`npm run bench`).
   * It also runs the SDK version the tests ran, not whichever the runtime ships that week.
   */
  external: [] as string[],
  /**
   * Packages replaced in the bundles. The SDK's default credential chain becomes its first link, the
   * environment, which is where Lambda puts the role's credentials: the other links were ~130 KB and ~9 ms of
   * every cold start (see lib/shared/lambda-credential-provider.ts).
   */
  alias: {
    '@aws-sdk/credential-provider-node': join(PROJECT_ROOT, 'lib', 'shared', 'lambda-credential-provider.ts'),
    /** A Map-based LRU with the members the SDK's endpoint cache calls (see the file): 7 KB less per function. */
    'mnemonist/lru-cache': join(PROJECT_ROOT, 'infra', 'bundling', 'replacements', 'lru-cache.ts'),
  },
  logLevel: 'silent',
} as const satisfies BuildOptions;

/**
 * The options of one build: BUNDLE_OPTIONS plus the plugins that leave out what no function can reach and the
 * routes' documentation (route-docs.ts).
 */
export function handlerBuildOptions(overrides: BuildOptions = {}): BuildOptions {
  return {
    ...BUNDLE_OPTIONS,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    external: [...BUNDLE_OPTIONS.external],
    alias: { ...BUNDLE_OPTIONS.alias },
    outExtension: { ...BUNDLE_OPTIONS.outExtension },
    plugins: [shippedDependencies(), routeDocsLeftOut()],
    ...overrides,
  };
}

export interface BuiltHandler {
  /** The bundle Lambda loads: `<outdir>/<name>/index.cjs`. */
  readonly file: string;
  readonly bytes: number;
  /** Every source file in the bundle with the bytes it contributes, by path relative to the project. */
  readonly inputs: Metafile['outputs'][string]['inputs'];
  /**
   * The files the bundle reads at run time from its own directory, written beside it (undici's SIMD parser,
   * SIMD_PARSER_FILE, where it calls the provider); the asset ships them with `index.cjs`.
   */
  readonly runtimeFiles: readonly string[];
}

/**
 * Builds each named entry to `<outdir>/<name>/index.cjs` (one esbuild run), returning what each bundle holds.
 * Refuses a build esbuild warns about.
 *
 * @example
 * const [sweep] = await buildHandlers({ 'sweep-due-payouts': 'functions/sweep-due-payouts.ts' }, outdir);
 */
export async function buildHandlers(
  entries: Readonly<Record<string, string>>,
  outdir: string,
  overrides: BuildOptions = {},
): Promise<Map<string, BuiltHandler>> {
  const { metafile, warnings } = await build({
    ...handlerBuildOptions(overrides),
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [`${name}/index`, entry])),
    outdir,
    metafile: true,
    absWorkingDir: PROJECT_ROOT,
  });
  // A warning is code that builds but would not run as written: `import.meta` in a CommonJS bundle is `{}`.
  if (warnings.length > 0) {
    const where = (warning: (typeof warnings)[number]) =>
      warning.location ? ` (${warning.location.file}:${warning.location.line})` : '';
    throw new Error(
      `esbuild warned: ${warnings.map((warning) => `${warning.text}${where(warning)}`).join('; ')}`,
    );
  }
  const built = new Map<string, BuiltHandler>();
  for (const name of Object.keys(entries)) {
    const [path, output] =
      Object.entries(metafile.outputs).find(([file]) => file.endsWith(`${name}/${BUNDLE_FILE}`)) ?? [];
    if (!path || !output) throw new Error(`esbuild wrote no bundle for ${name}`);
    const file = join(PROJECT_ROOT, path);
    const runtimeFiles = carriesSimdParser(output.inputs) ? [writeSimdParser(dirname(file))] : [];
    built.set(name, { file, bytes: output.bytes, inputs: output.inputs, runtimeFiles });
  }
  return built;
}

/** The source file of a handler in `functions/`. */
export function handlerEntry(name: string): string {
  return join(PROJECT_ROOT, 'functions', `${name}.ts`);
}
