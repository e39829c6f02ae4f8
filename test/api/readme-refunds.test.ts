import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, call, type EventInput, startApiHarness } from './support/harness.js';

/**
 * The curl commands of the README's Refunds section, run against the real router (DynamoDB Local and the sandbox):
 * each command's `# <status>: ...` comment is the answer it must get.
 */
let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness({ env: { APPROVAL_THRESHOLD_KOBO: '1000000' } });
});
afterAll(async () => h?.close());

interface DocCommand {
  readonly input: EventInput;
  readonly expectedStatus: number;
}

/** The commands of the first `sh` block under `## Refunds`, continuation lines joined. */
function refundCommands(): DocCommand[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Refunds\n'));
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

describe('README: Refunds', () => {
  it('runs every refund command of the README with the answer its comment states', async () => {
    const commands = refundCommands();
    expect(commands).toHaveLength(4);
    const transaction = h.sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid === 15_000);
    let id = '<id>';
    const answers = [];
    for (const { input, expectedStatus } of commands) {
      const substitute = (text: string) =>
        text.replace('<payment-link transaction id>', transaction?.id ?? '').replace('<id>', id);
      const reply = await call(h.api, {
        ...input,
        path: substitute(input.path),
        ...(typeof input.body === 'string' && { body: substitute(input.body) }),
      });
      expect(reply.status, `${input.method} ${input.path}`).toBe(expectedStatus);
      if (id === '<id>') id = reply.body.id;
      answers.push(reply.body);
    }
    expect(answers.map((answer) => answer.status)).toEqual(['pending_approval', 403, 'pending', 'pending']);
    expect(answers[3].audit.map((event: { to: string }) => event.to)).toEqual([
      'pending_approval',
      'requested',
      'sending',
      'pending',
    ]);
  });
});
