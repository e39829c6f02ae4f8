import { readFileSync } from 'node:fs';
import type { EventInput } from './harness.js';

/** One curl command of the README, as a router call, with the status its `# <status>: …` comment states. */
export interface DocCommand {
  readonly input: EventInput;
  readonly expectedStatus: number;
}

/**
 * The curl commands of the first `sh` block after `marker` in the README, or in `file` (a path from the project
 * root, e.g. `docs/bulk-corrections.md`), continuation lines joined. Each must call `$API/…` and end with a
 * `# <status>: …` comment.
 */
export function readmeCommands(marker: string, file = 'README.md'): DocCommand[] {
  const readme = readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf(marker));
  const block = section.slice(
    section.indexOf('```sh\n') + 6,
    section.indexOf('\n```', section.indexOf('```sh')),
  );
  const lines = block.replaceAll('\\\n', ' ').split('\n');
  return lines.filter((line) => line.startsWith('curl ')).map(parseCurl);
}

function parseCurl(line: string): DocCommand {
  const [command = '', comment = ''] = line.split(/\s+#\s+/);
  const tokens = [...command.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? '');
  const headers: Record<string, string> = {};
  let method: EventInput['method'] = 'GET';
  let url = '';
  let body: string | undefined;
  for (let index = 1; index < tokens.length; index++) {
    const token = tokens[index] ?? '';
    if (token === '-s') continue;
    if (token === '-X') method = tokens[++index] as EventInput['method'];
    else if (token === '-H') {
      const [name = '', ...value] = (tokens[++index] ?? '').split(':');
      headers[name.trim()] = value.join(':').trim();
    } else if (token === '-d') body = tokens[++index];
    else url = token;
  }
  const principal = headers['X-Ops-Principal'];
  delete headers['X-Ops-Principal'];
  const expectedStatus = Number(/^(\d{3}):/.exec(comment)?.[1]);
  if (!url.startsWith('$API/') || Number.isNaN(expectedStatus)) throw new Error(`cannot run: ${line}`);
  return {
    input: {
      method,
      path: url.slice('$API'.length),
      headers,
      ...(body !== undefined && { body }),
      ...(principal && { principal }),
    },
    expectedStatus,
  };
}
