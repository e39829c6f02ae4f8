import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { buildHandlers } from '../../infra/bundling/build-handler.js';

/** Runs the bundled fixture's `handler` with one event in a fresh node, and answers what it returned. */
export type FreshNodeRun = (event: object) => Promise<unknown>;

/**
 * Builds `fixture` (a module exporting `handler`) with the functions' own build into a directory of its own,
 * hands `use` a way to run it in a fresh node, as a cold Lambda would load it, and removes the directory after.
 * The node's environment is PATH, HOME set to that directory (no AWS files there), and nothing else.
 */
export async function withBundledFixture<T>(
  fixture: string,
  use: (run: FreshNodeRun, home: string) => Promise<T>,
): Promise<T> {
  const name = basename(fixture).replace(/\.ts$/, '');
  const outdir = mkdtempSync(join(tmpdir(), `${name}-`));
  try {
    const built = await buildHandlers({ [name]: fixture }, outdir);
    const file = built.get(name)?.file ?? '';
    const run: FreshNodeRun = async (event) => {
      const script = `require(process.argv[1]).handler(${JSON.stringify(event)}).then((r) => process.stdout.write(JSON.stringify(r)))`;
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, file], {
        env: {
          PATH: process.env.PATH,
          HOME: outdir,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      });
      return JSON.parse(stdout) as unknown;
    };
    return await use(run, outdir);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
