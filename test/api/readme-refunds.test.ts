import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, call, startApiHarness } from './support/harness.js';
import { readmeCommands } from './support/readme-commands.js';

/**
 * The curl commands of the README's Refunds section, run against the real router (DynamoDB Local and the sandbox):
 * each command's `# <status>: ...` comment is the answer it must get.
 */
let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness({ env: { APPROVAL_THRESHOLD_KOBO: '1000000' } });
});
afterAll(async () => h?.close());

describe('README: Refunds', () => {
  it('runs every refund command of the README with the answer its comment states', async () => {
    const commands = readmeCommands('## Refunds\n');
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
