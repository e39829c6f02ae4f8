import { copyFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';
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
  /**
   * `import()` of a module left outside the bundle (SEPARATE_MODULES) becomes `require()`: the bundle is
   * CommonJS, and a real `import()` would start Node's ES module loader on the first payout's path.
   */
  supported: { 'dynamic-import': false },
  logLevel: 'silent',
} as const satisfies BuildOptions;

/**
 * Modules built into a file of their own beside the bundle instead of into it, each loaded by the bundle with
 * `require()` where the source imports it with `import()`, on first use.
 *
 * Why: V8 parses the whole of a script before it runs any of it, code that runs only later included. undici
 * (91 KB of the 420 KB bundles that call the provider) runs only once a payout's claim is on its way to
 * DynamoDB (lib/provider/http-transport.ts); in a file of its own it is read and compiled then, while the
 * function waits on that request, instead of before the function's first line (docs/cold-start.md).
 * A separate module must import nothing that keeps state the bundle also uses: it gets its own copy.
 */
export const SEPARATE_MODULES = [
  {
    /** How the source imports it, dynamically: the specifier and the importing directory. */
    specifier: './undici-pool.js',
    importer: join(PROJECT_ROOT, 'lib', 'provider'),
    source: join(PROJECT_ROOT, 'lib', 'provider', 'undici-pool.ts'),
    file: 'undici-pool.cjs',
  },
] as const;

/** The options of one build: BUNDLE_OPTIONS plus the plugin that leaves out what no function can reach. */
export function handlerBuildOptions(overrides: BuildOptions = {}): BuildOptions {
  return {
    ...BUNDLE_OPTIONS,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    external: [...BUNDLE_OPTIONS.external],
    alias: { ...BUNDLE_OPTIONS.alias },
    outExtension: { ...BUNDLE_OPTIONS.outExtension },
    supported: { ...BUNDLE_OPTIONS.supported },
    plugins: [shippedDependencies(), separateModules()],
    ...overrides,
  };
}

export interface BuiltHandler {
  /** The bundle Lambda loads: `<outdir>/<name>/index.cjs`. */
  readonly file: string;
  /** The bundle's size: what V8 parses before the function's first line runs. */
  readonly bytes: number;
  /**
   * Every source file the function ships with the bytes it contributes, by path relative to the project: its
   * bundle and the separate modules beside it (SEPARATE_MODULES).
   */
  readonly inputs: Metafile['outputs'][string]['inputs'];
  /**
   * The files the bundle reads at run time from its own directory, written beside it: the separate modules it
   * requires (SEPARATE_MODULES) and undici's SIMD parser (SIMD_PARSER_FILE) where it calls the provider; the
   * asset ships them with `index.cjs`.
   */
  readonly runtimeFiles: readonly string[];
  /** The separate modules beside the bundle, by file name, with their sizes. */
  readonly separateModules: ReadonlyMap<string, number>;
}

type Inputs = Metafile['outputs'][string]['inputs'];

/**
 * Builds each named entry to `<outdir>/<name>/index.cjs` (one esbuild run), with the separate modules it
 * requires beside it, returning what each function ships. Refuses a build esbuild warns about.
 *
 * @example
 * const [sweep] = await buildHandlers({ 'sweep-due-payouts': 'functions/sweep-due-payouts.ts' }, outdir);
 */
export async function buildHandlers(
  entries: Readonly<Record<string, string>>,
  outdir: string,
  overrides: BuildOptions = {},
): Promise<Map<string, BuiltHandler>> {
  const bundles = await buildOnce(
    Object.fromEntries(Object.entries(entries).map(([name, entry]) => [`${name}/index`, entry])),
    outdir,
    overrides,
  );
  let separate: Map<string, { file: string; bytes: number; inputs: Inputs }> | undefined;
  const built = new Map<string, BuiltHandler>();
  for (const name of Object.keys(entries)) {
    const [path, output] =
      Object.entries(bundles.outputs).find(([file]) => file.endsWith(`${name}/${BUNDLE_FILE}`)) ?? [];
    if (!path || !output) throw new Error(`esbuild wrote no bundle for ${name}`);
    const file = join(PROJECT_ROOT, path);
    const required = SEPARATE_MODULES.filter((module) =>
      output.imports.some((imported) => imported.external && imported.path === `./${module.file}`),
    );
    separate ??=
      required.length > 0 ? await buildSeparateModules(join(outdir, '.separate'), overrides) : undefined;
    const runtimeFiles: string[] = [];
    let inputs: Inputs = output.inputs;
    const separateModules = new Map<string, number>();
    for (const module of required) {
      const separateBuilt = separate?.get(module.file);
      if (!separateBuilt) throw new Error(`esbuild wrote no ${module.file}`);
      for (const shipped of [separateBuilt.file, ...mapOf(separateBuilt.file, overrides)]) {
        const copy = join(dirname(file), basename(shipped));
        copyFileSync(shipped, copy);
        runtimeFiles.push(copy);
      }
      inputs = mergedInputs(inputs, separateBuilt.inputs);
      separateModules.set(module.file, separateBuilt.bytes);
    }
    if (carriesSimdParser(inputs)) runtimeFiles.push(writeSimdParser(dirname(file)));
    built.set(name, { file, bytes: output.bytes, inputs, runtimeFiles, separateModules });
  }
  return built;
}

/** One esbuild run; refuses a build esbuild warns about (`import.meta` in a CommonJS bundle is `{}`). */
async function buildOnce(
  entryPoints: Record<string, string>,
  outdir: string,
  overrides: BuildOptions,
): Promise<Metafile> {
  const { metafile, warnings } = await build({
    ...handlerBuildOptions(overrides),
    entryPoints,
    outdir,
    metafile: true,
    absWorkingDir: PROJECT_ROOT,
  });
  if (warnings.length > 0) {
    const where = (warning: (typeof warnings)[number]) =>
      warning.location ? ` (${warning.location.file}:${warning.location.line})` : '';
    throw new Error(
      `esbuild warned: ${warnings.map((warning) => `${warning.text}${where(warning)}`).join('; ')}`,
    );
  }
  return metafile;
}

/** Every SEPARATE_MODULES entry built once into `outdir`, as a CommonJS file of the same build as the bundles. */
export async function buildSeparateModules(
  outdir: string,
  overrides: BuildOptions,
): Promise<Map<string, { file: string; bytes: number; inputs: Inputs }>> {
  const metafile = await buildOnce(
    Object.fromEntries(SEPARATE_MODULES.map((module) => [basename(module.file, '.cjs'), module.source])),
    outdir,
    overrides,
  );
  const separate = new Map<string, { file: string; bytes: number; inputs: Inputs }>();
  for (const module of SEPARATE_MODULES) {
    const [path, output] =
      Object.entries(metafile.outputs).find(([file]) => file.endsWith(`/${module.file}`)) ?? [];
    if (!path || !output) throw new Error(`esbuild wrote no ${module.file}`);
    separate.set(module.file, { file: join(PROJECT_ROOT, path), bytes: output.bytes, inputs: output.inputs });
  }
  return separate;
}

/** The source map written beside a built file, when the build writes one. */
function mapOf(file: string, overrides: BuildOptions): string[] {
  return overrides.sourcemap ? [`${file}.map`] : [];
}

function mergedInputs(into: Inputs, from: Inputs): Inputs {
  const merged: Record<string, Inputs[string]> = { ...into };
  for (const [input, { bytesInOutput }] of Object.entries(from)) {
    merged[input] = { bytesInOutput: (merged[input]?.bytesInOutput ?? 0) + bytesInOutput };
  }
  return merged;
}

/**
 * The plugin that leaves each SEPARATE_MODULES entry out of the bundles that import it, required from the file
 * beside them instead.
 */
function separateModules(): Plugin {
  return {
    name: 'separate-modules',
    setup(build) {
      const specifiers = new RegExp(
        `^(${SEPARATE_MODULES.map((module) => module.specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`,
      );
      build.onResolve({ filter: specifiers }, (args) => {
        const module = SEPARATE_MODULES.find(
          (candidate) => candidate.specifier === args.path && candidate.importer === args.resolveDir,
        );
        if (!module) return undefined;
        if (args.kind !== 'dynamic-import') {
          throw new Error(
            `${module.specifier} is a separate module (SEPARATE_MODULES): import it with import(), not ${args.kind}`,
          );
        }
        return { path: `./${module.file}`, external: true };
      });
    },
  };
}

/** The source file of a handler in `functions/`. */
export function handlerEntry(name: string): string {
  return join(PROJECT_ROOT, 'functions', `${name}.ts`);
}
