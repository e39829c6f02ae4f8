import { readFileSync } from 'node:fs';
import type { Plugin } from 'esbuild';
import ts from 'typescript';

/**
 * The properties of a `route({...})` (lib/api/router.ts) that only the OpenAPI generator and the CLI's table read:
 * the router never does, so a Lambda serving the route has no use for them.
 */
export const ROUTE_DOC_PROPERTIES = ['operationId', 'summary', 'description', 'request', 'cli'] as const;

const ROUTE_FILES = /[\\/]lib[\\/]api[\\/]routes[\\/][^\\/]+\.ts$/;

/**
 * A route file without the ROUTE_DOC_PROPERTIES of its `route({...})` calls: each property and its comma are
 * blanked (newlines kept), so every other line and column is where it was and the source map stays exact.
 */
export function withoutRouteDocs(source: string, fileName = 'route.ts'): string {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const ranges: [number, number][] = [];
  const names: readonly string[] = ROUTE_DOC_PROPERTIES;
  const visit = (node: ts.Node): void => {
    const [definition] = ts.isCallExpression(node) ? node.arguments : [];
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'route' &&
      definition &&
      ts.isObjectLiteralExpression(definition)
    ) {
      for (const property of definition.properties) {
        if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) continue;
        if (!names.includes(property.name.text)) continue;
        let end = property.end;
        while (end < source.length && /\s/.test(source.charAt(end))) end += 1;
        ranges.push([property.getStart(file), source.charAt(end) === ',' ? end + 1 : property.end]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let result = source;
  for (const [start, end] of ranges.sort((a, b) => b[0] - a[0])) {
    result = result.slice(0, start) + result.slice(start, end).replace(/[^\n]/g, ' ') + result.slice(end);
  }
  return result;
}

/**
 * Leaves the route documentation (operationIds, summaries, descriptions, request schemas for the document, CLI
 * words) out of the Lambda bundles: docs/openapi.json and lib/cli/commands.generated.ts carry it, and without it
 * every api-* bundle stays the size it was before the routes held it (infra/bundling/build-handler.ts, the limit).
 */
export function routeDocsLeftOut(): Plugin {
  return {
    name: 'route-docs-left-out',
    setup(build) {
      build.onLoad({ filter: ROUTE_FILES }, (args) => ({
        contents: withoutRouteDocs(readFileSync(args.path, 'utf8'), args.path),
        loader: 'ts',
      }));
    },
  };
}
