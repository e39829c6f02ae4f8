import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, call, startApiHarness } from '../api/support/harness.js';
import { readmeCommands } from '../api/support/readme-commands.js';

/**
 * The curl commands of the README's recurring payouts under the gate, run against the real router (DynamoDB
 * Local and the sandbox, the default limits): each command's `# <status>: ...` comment is the answer it must get.
 */
let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
});
afterAll(async () => h?.close());

describe('README: recurring payouts under the control gate', () => {
  it('runs every recurring-rule command of the README with the answer its comment states', async () => {
    const commands = readmeCommands('A rule passes the same control gate as every payout');
    expect(commands).toHaveLength(4);
    let id = '<id>';
    const answers = [];
    for (const { input, expectedStatus } of commands) {
      const reply = await call(h.api, { ...input, path: input.path.replace('<id>', id) });
      expect(reply.status, `${input.method} ${input.path}`).toBe(expectedStatus);
      if (reply.status === 201) id = reply.body.id;
      answers.push(reply.body);
    }
    expect(answers[0].errors).toEqual([{ path: 'amount', message: expect.any(String) }]);
    expect(answers.slice(1).map((answer) => answer.status)).toEqual(['pending_approval', 403, 'active']);
    expect(answers[3]).toMatchObject({ createdBy: { id: 'alice' }, approvedBy: { id: 'bob' } });
    expect((await h.items()).filter((item) => String(item.pk).includes('rent-big'))).toEqual([]);
  });
});
