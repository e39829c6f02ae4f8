import type { Route, RouteCommand } from '../api/index.js';
import { GENERATED_COMMANDS } from './commands.generated.js';

/**
 * One command of the CLI: the route's `cli` (its words and flags, lib/api/router.ts `RouteCommand`) with what
 * follows from the route itself.
 */
export interface CommandSpec extends Omit<RouteCommand, 'summary'> {
  readonly method: Route['method'];
  /** The route; `{name}` segments are filled from the positional arguments, in order. */
  readonly path: string;
  readonly summary: string;
  /** `--body FILE` (or `-` for standard input) is required. */
  readonly body?: 'required' | 'optional';
  /** `--body FILE.csv` is sent as `text/csv` (the route takes a CSV file as well as JSON). */
  readonly csv?: boolean;
  /** Needs `--key`: a create is idempotent per key, so a retried command never pays twice. */
  readonly idempotent?: boolean;
}

/**
 * Every route of the ops API as a command: lib/cli/commands.generated.ts, which `npm run openapi` writes from the
 * routes (`commandsOf`) and a test holds current. The CLI reads that file, not the routes, so it starts without
 * loading every handler; `request METHOD PATH` reaches any route by hand.
 */
export const COMMANDS: readonly CommandSpec[] = GENERATED_COMMANDS;

/**
 * The routes as commands, from each route's `cli` (lib/api/router.ts): the method and path are the route's, a
 * required body is `--body` unless flags make it, an `Idempotency-Key` the route requires is `--key`, a CSV
 * upload `--csv`. Commands of one group (`payouts …`) stand together, as `payouts --help` lists them.
 */
export function commandsOf(
  routes: readonly Pick<Route, 'method' | 'path' | 'summary' | 'request' | 'cli'>[],
) {
  const commands = routes.map((route): CommandSpec => {
    const { words, summary, aliases, watch, list, parts, query, bodyFlags, listFlags, confirmFrom } =
      route.cli;
    const said = summary ?? route.summary;
    if (!said) throw new Error(`${route.method} ${route.path} has no summary for its command`);
    const body = route.request?.body;
    return {
      words,
      ...(aliases && { aliases }),
      ...(watch && { watch }),
      method: route.method,
      path: route.path,
      summary: said,
      ...(list && { list }),
      ...(query && { query }),
      ...(body && body.required !== false && !bodyFlags && { body: 'required' }),
      ...(body?.csv && { csv: true }),
      ...(route.request?.idempotencyKey === 'required' && { idempotent: true }),
      ...(bodyFlags && { bodyFlags }),
      ...(listFlags && { listFlags }),
      ...(confirmFrom && { confirmFrom }),
      ...(parts && { parts }),
    };
  });
  // Each group's commands together (`payouts export` with `payouts list`), groups in the routes' order.
  const groups = [...new Set(commands.map((command) => command.words[0]))];
  return groups.flatMap((group) => commands.filter((command) => command.words[0] === group));
}

/** `{id}` segments of a route, as `<id>` for the usage text. */
export function placeholders(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => `<${match[1]}>`);
}

/** lib/cli/commands.generated.ts as `npm run openapi` writes it: one command a line. */
export function commandTableSource(commands: readonly CommandSpec[]): string {
  return [
    '// Written by `npm run openapi` from the routes (lib/cli/command-table.ts, `commandsOf`): do not edit.',
    '// Typed where it is read: COMMANDS (command-table.ts) holds it to CommandSpec.',
    '',
    'export const GENERATED_COMMANDS = [',
    ...commands.map((command) => `  ${JSON.stringify(command)},`),
    '] as const;',
    '',
  ].join('\n');
}
