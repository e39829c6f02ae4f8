import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/constructs/payout-function.js';
import { HANDLERS, type HandlerTrigger } from '../../infra/handlers.js';

/**
 * The layout is the architecture: a function in `functions/` imports only the room of its own trigger and the
 * composition root (`lib/runtime`), and nothing in `lib/` reaches back into `functions/` or into the tooling
 * around it (bench, scripts, tests). What the bundles carry is checked from esbuild's metafile in bundles.test.ts.
 */
const TRIGGER_ROOM: Readonly<Record<HandlerTrigger['kind'], string>> = {
  api: 'lib/api',
  schedule: 'lib/jobs',
  queue: 'lib/jobs',
  event: 'lib/events',
  stream: 'lib/events',
  'domain-event': 'lib/notifications',
};
const COMPOSITION_ROOT = 'lib/runtime';

/** Every module specifier a source file names: static imports and re-exports, and dynamic `import()`. */
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g,
  )) {
    found.push((match[1] ?? match[2]) as string);
  }
  return found;
}

/** The project-relative path of each relative import of `file`, with `.js` read as the `.ts` it compiles from. */
function localImportsOf(file: string): string[] {
  return specifiersOf(readFileSync(join(PROJECT_ROOT, file), 'utf8'))
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(PROJECT_ROOT, resolve(PROJECT_ROOT, dirname(file), specifier)));
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => join(folder, path));
}

const inRoom = (path: string, room: string) => path === room || path.startsWith(`${room}/`);

describe('room boundaries', () => {
  const functions = Object.keys(HANDLERS) as (keyof typeof HANDLERS)[];

  it.each(functions)('functions/%s imports only its trigger room and the composition root', (name) => {
    const room = TRIGGER_ROOM[HANDLERS[name].trigger.kind];
    const imports = localImportsOf(`functions/${name}.ts`);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((path) => !inRoom(path, room) && !inRoom(path, COMPOSITION_ROOT))).toEqual([]);
  });

  it('nothing in lib/ imports functions/, bench/, scripts/ or test/', () => {
    const crossings = sourceFiles('lib').flatMap((file) =>
      localImportsOf(file)
        .filter((path) => ['functions', 'bench', 'scripts', 'test'].some((folder) => inRoom(path, folder)))
        .map((path) => `${file} -> ${path}`),
    );
    expect(crossings).toEqual([]);
  });

  it('the scanner sees static, re-exported and dynamic imports', () => {
    expect(
      specifiersOf(
        "import type { A } from './a.js';\nexport { b } from '../b.js';\nconst c = await import('../../functions/c.js');",
      ),
    ).toEqual(['./a.js', '../b.js', '../../functions/c.js']);
  });
});
