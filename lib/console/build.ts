import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

const appDir = join(import.meta.dirname, 'app');

/**
 * The most the console's script may weigh, minified (bytes). The console is small by design (no UI framework:
 * docs/console.md); the budget leaves room for its pages and the AWS SDK's SigV4 signer, and a test holds it.
 */
export const CONSOLE_SCRIPT_BUDGET_BYTES = 64 * 1024;

export interface ConsoleFile {
  readonly body: Buffer;
  readonly contentType: string;
}

/**
 * The console's static files (index.html, console.js, console.css), built in memory by esbuild: a browser
 * bundle, minified, with no source map (nothing of the source ships that the script does not need).
 */
export function buildConsole(): Map<string, ConsoleFile> {
  const result = buildSync({
    entryPoints: [join(appDir, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    write: false,
    outfile: 'console.js',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const script = result.outputFiles[0];
  if (!script) throw new Error('esbuild produced no console script');
  return new Map([
    [
      'index.html',
      { body: readFileSync(join(appDir, 'index.html')), contentType: 'text/html; charset=utf-8' },
    ],
    [
      'console.css',
      { body: readFileSync(join(appDir, 'console.css')), contentType: 'text/css; charset=utf-8' },
    ],
    ['console.js', { body: Buffer.from(script.contents), contentType: 'text/javascript; charset=utf-8' }],
  ]);
}
