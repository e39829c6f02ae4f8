import { join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { shippedDependencies } from './shipped-dependencies.js';

/** The project root: `functions/`, `package-lock.json` and `tsconfig.json` live there. */
export const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

/**
 * ESM bundles need a real `require` for the CommonJS dependencies esbuild inlines; without it they fail at
 * run time with "Dynamic require of node:... is not supported" (see TOOLCHAIN.md).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** The most a function's bundle (its index.mjs, minified, everything it imports inlined) may weigh. */
export const BUNDLE_LIMIT_BYTES = 450 * 1024;

/**
 * esbuild settings of every Lambda bundle. One build (`buildHandlers`) serves the CDK construct, the bundle
 * test and the cold-start benchmark, so what is tested and measured is what ships.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'node22',
  platform: 'node',
  outExtension: { '.js': '.mjs' },
  banner: { js: ESM_REQUIRE_BANNER },
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

/** The options of one build: BUNDLE_OPTIONS plus the plugin that leaves out what no function can reach. */
export function handlerBuildOptions(overrides: BuildOptions = {}): BuildOptions {
  return {
    ...BUNDLE_OPTIONS,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    external: [...BUNDLE_OPTIONS.external],
    alias: { ...BUNDLE_OPTIONS.alias },
    banner: { ...BUNDLE_OPTIONS.banner },
    outExtension: { ...BUNDLE_OPTIONS.outExtension },
    plugins: [shippedDependencies()],
    ...overrides,
  };
}

export interface BuiltHandler {
  /** The bundle Lambda loads: `<outdir>/<name>/index.mjs`. */
  readonly file: string;
  readonly bytes: number;
  /** Every source file in the bundle with the bytes it contributes, by path relative to the project. */
  readonly inputs: Metafile['outputs'][string]['inputs'];
}

/**
 * Builds each named entry to `<outdir>/<name>/index.mjs` (one esbuild run), returning what each bundle holds.
 *
 * @example
 * const [sweep] = await buildHandlers({ 'sweep-due-payouts': 'functions/sweep-due-payouts.ts' }, outdir);
 */
export async function buildHandlers(
  entries: Readonly<Record<string, string>>,
  outdir: string,
  overrides: BuildOptions = {},
): Promise<Map<string, BuiltHandler>> {
  const { metafile } = await build({
    ...handlerBuildOptions(overrides),
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [`${name}/index`, entry])),
    outdir,
    metafile: true,
    absWorkingDir: PROJECT_ROOT,
  });
  const built = new Map<string, BuiltHandler>();
  for (const name of Object.keys(entries)) {
    const [path, output] =
      Object.entries(metafile.outputs).find(([file]) => file.endsWith(`${name}/index.mjs`)) ?? [];
    if (!path || !output) throw new Error(`esbuild wrote no bundle for ${name}`);
    built.set(name, { file: join(PROJECT_ROOT, path), bytes: output.bytes, inputs: output.inputs });
  }
  return built;
}

/** The source file of a handler in `functions/`. */
export function handlerEntry(name: string): string {
  return join(PROJECT_ROOT, 'functions', `${name}.ts`);
}
