import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/constructs/payout-function.js';
import { HANDLERS, type HandlerTrigger } from '../../infra/handlers.js';

/**
 * The layout is the architecture: a function in `functions/` imports only the room of its own trigger and the
 * composition root (`lib/runtime`), and nothing in `lib/` reaches back into `functions/` or into the tooling
 * around it (bench, scripts, tests). What the bundles carry is checked from esbuild's metafile in bundles.test.ts.
 * Rooms of lib/ meet only through each other's `index.ts`: package.json's `"sideEffects": false` lets esbuild drop
 * every re-exported module a bundle does not use, so a front door costs a Lambda nothing.
 *
 * Why a test here rather than dependency-cruiser: the first rule comes from the handler table (each function's
 * trigger, infra/handlers.ts), which a test reads as it is and a cruiser configuration would have to copy; the
 * rest (front doors, the listed arrows and no unused one, no cycle) are a few dozen lines over the same scan,
 * itself tested below, run in well under a second with every test, and each failure names the file and the arrow.
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

/** The room of a file of lib/ (`lib/payouts/engine/sweep.ts` is `payouts`), undefined outside lib/. */
const roomOf = (path: string): string | undefined =>
  path.startsWith('lib/') ? (path.split('/')[1] ?? '').replace(/\.ts$/, '') : undefined;

/** The kernel every room may import file by file: the shared utilities, money, the table's design. */
const KERNEL = new Set(['shared', 'money', 'table']);
/** The kernel rooms that other rooms may import file by file: the shared utilities and money (the table has a door). */
const FILE_BY_FILE = new Set(['shared', 'money']);

/**
 * Every arrow from one room of lib/ to another, apart from the kernel: the architecture in one place. A new arrow
 * fails the test below until it is added here, which is the moment to ask whether the rooms should meet.
 * Entry rooms (api, jobs, events, local) call the composition root (runtime), which builds every feature room;
 * feature rooms reach payouts (the engine and its gate) and the provider, never an entry room or the root.
 */
const ALLOWED_ARROWS: Readonly<Record<string, readonly string[]>> = {
  api: [
    'controls',
    'bulk-corrections',
    'events',
    'future-payouts',
    // The operators' routes, and the disabled-operator check every route passes (lib/operators/access.ts).
    'operators',
    'payout-runs',
    'payouts',
    'provider',
    'provider-schedules',
    'recurrence',
    'refunds',
    'runtime',
    'settlement',
    'statements',
  ],
  'bulk-corrections': ['controls', 'payouts', 'provider'],
  // The CLI signs in to npm start's user pool (lib/local/cognito-api.ts) at the path its API names; its commands
  // are the routes' (types only: it reads the table npm run openapi writes, lib/cli/commands.generated.ts).
  cli: ['api', 'local'],
  events: ['controls', 'payout-runs', 'payouts', 'runtime', 'settlement', 'statements'],
  'future-payouts': ['controls', 'payouts', 'provider-schedules', 'recurrence'],
  jobs: [
    'bulk-corrections',
    'payout-runs',
    'payouts',
    'provider',
    'provider-schedules',
    'recurrence',
    'refunds',
    'runtime',
    'settlement',
    'statements',
  ],
  // The browser console: its script reads money only (the kernel); nothing of the server's rooms ships to it.
  console: [],
  // The controls every money path passes (the gate, four eyes' identities, the refusals): they judge, and import no room.
  controls: [],
  // npm start serves the console beside the API (lib/local/console-site.ts).
  // It verifies operators' tokens as API Gateway would, granting their groups' roles (lib/operators/roles.ts).
  local: ['api', 'console', 'events', 'operators'],
  notifications: ['events'],
  // An operator is a Principal, and "another admin" is the one identity four eyes compares (lib/controls/identity.ts).
  operators: ['controls'],
  'payout-runs': ['controls', 'payouts'],
  payouts: ['controls', 'provider'],
  'provider-schedules': ['payouts', 'provider', 'recurrence'],
  recurrence: ['controls', 'payouts'],
  refunds: ['controls', 'payouts', 'provider'],
  runtime: [
    'bulk-corrections',
    'events',
    'notifications',
    'operators',
    'payout-runs',
    'payouts',
    'provider',
    'provider-schedules',
    'recurrence',
    'refunds',
    'settlement',
    'statements',
  ],
  sandbox: [],
  settlement: ['controls', 'payouts', 'provider'],
  statements: ['payouts', 'provider', 'refunds'],
  provider: [],
  shared: [],
  table: [],
};

/** The import graph of lib/: each file and the files of lib/ it imports. */
function libImportGraph(): Map<string, string[]> {
  return new Map(
    sourceFiles('lib').map((file) => [
      file,
      localImportsOf(file)
        .map((path) => path.replace(/\.js$/, '.ts'))
        .filter((path) => path.startsWith('lib/')),
    ]),
  );
}

/** The cycles of a graph: each strongly connected component of more than one file (Tarjan's algorithm). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const imported of graph.get(file) ?? []) {
      if (!graph.has(imported)) continue;
      if (!index.has(imported)) {
        visit(imported);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(imported) ?? 0));
      } else if (onStack.has(imported)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(imported) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

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

  it('no file of lib/ imports itself through others: no import cycle', () => {
    expect(cyclesOf(libImportGraph())).toEqual([]);
  });

  it('a room of lib/ imports another only along an arrow listed in ALLOWED_ARROWS, and the kernel imports no room', () => {
    const unlisted = new Set<string>();
    for (const [file, imports] of libImportGraph()) {
      const from = roomOf(file) ?? '';
      for (const path of imports) {
        const to = roomOf(path) ?? '';
        if (to === from || KERNEL.has(to)) continue;
        if (KERNEL.has(from) || !(ALLOWED_ARROWS[from] ?? []).includes(to))
          unlisted.add(`${file} -> ${path}`);
      }
    }
    expect([...unlisted]).toEqual([]);
  });

  it("a room of lib/ enters another only through its front door, the room's index.ts", () => {
    const pastTheDoor: string[] = [];
    for (const [file, imports] of libImportGraph()) {
      const from = roomOf(file) ?? '';
      for (const path of imports) {
        const to = roomOf(path) ?? '';
        if (to === from || FILE_BY_FILE.has(to)) continue;
        if (path !== `lib/${to}/index.ts`) pastTheDoor.push(`${file} -> ${path}`);
      }
    }
    expect(pastTheDoor).toEqual([]);
  });

  it('every arrow listed in ALLOWED_ARROWS is one some file takes, so the list says how the rooms meet today', () => {
    const taken = new Set<string>();
    for (const [file, imports] of libImportGraph()) {
      for (const path of imports) taken.add(`${roomOf(file) ?? ''} -> ${roomOf(path) ?? ''}`);
    }
    const unused = Object.entries(ALLOWED_ARROWS).flatMap(([from, targets]) =>
      targets.map((to) => `${from} -> ${to}`).filter((arrow) => !taken.has(arrow)),
    );
    expect(unused).toEqual([]);
  });

  it('every room of lib/ is named in ALLOWED_ARROWS', () => {
    const rooms = new Set(sourceFiles('lib').map((file) => roomOf(file) ?? ''));
    for (const kernel of KERNEL) rooms.delete(kernel);
    expect([...rooms].filter((room) => !(room in ALLOWED_ARROWS))).toEqual([]);
  });

  it('the cycle finder finds a cycle of three files and none in a chain', () => {
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('the scanner sees static, re-exported and dynamic imports', () => {
    expect(
      specifiersOf(
        "import type { A } from './a.js';\nexport { b } from '../b.js';\nconst c = await import('../../functions/c.js');",
      ),
    ).toEqual(['./a.js', '../b.js', '../../functions/c.js']);
  });
});
