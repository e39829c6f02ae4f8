import { describe, expect, it } from 'vitest';
import { formatForPeople, personName } from '../../lib/cli/format.js';

const SUB_BOB = '0f6c2b9e-5d41-4b7a-9c3e-2a1d8e7f6b50';
const SUB_ALICE = '7a1e4c2d-9b3f-4e8a-a6d5-1c2b3a4d5e6f';
const bob = { id: `bob#cognito:${SUB_BOB}`, kind: 'user' };
const alice = { id: `alice#cognito:${SUB_ALICE}`, kind: 'user' };

describe('CLI tables name people, not their identities', () => {
  it('a list shows who asked by their username, without the user pool sub', () => {
    const shown = formatForPeople({
      items: [
        { id: '01PAY1', status: 'pending_approval', amount: 1_200_000, requestedBy: alice },
        { id: '01PAY2', status: 'pending', amount: 250_000, requestedBy: bob },
      ],
    });
    expect(shown.split('\n')).toEqual([
      'ID      STATUS            AMOUNT         REQUESTEDBY',
      '01PAY1  pending_approval  NGN 12,000.00  alice',
      '01PAY2  pending           NGN 2,500.00   bob',
    ]);
    expect(shown).not.toContain('cognito:');
  });

  it("a detail's audit table names the actor, while the detail's own fields keep the full identity", () => {
    const shown = formatForPeople({
      id: '01PAY',
      requestedBy: alice,
      approvedBy: bob,
      audit: [
        { at: '2026-05-04T09:00:00.000Z', actor: bob, from: 'pending_approval', to: 'pending', reason: 'ok' },
      ],
    });
    expect(shown).toContain(`requestedBy: alice#cognito:${SUB_ALICE}`);
    expect(shown).toContain(`approvedBy: bob#cognito:${SUB_BOB}`);
    expect(shown).toContain('  2026-05-04T09:00:00.000Z  bob    pending_approval → pending  ok');
  });

  it('names the person behind each kind of principal', () => {
    expect(personName(`carol#cognito:${SUB_BOB}`)).toBe('carol');
    expect(personName(`cognito:${SUB_BOB}`)).toBe(`cognito:${SUB_BOB}`);
    expect(personName('arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Ops_1/alice#alice')).toBe(
      'alice',
    );
    expect(personName('arn:aws:sts::123456789012:assumed-role/Ops/bot-7')).toBe('Ops/bot-7');
    expect(personName('arn:aws:iam::123456789012:user/ops/dave')).toBe('dave');
    expect(personName('system:recurrence')).toBe('system:recurrence');
    expect(personName('alice')).toBe('alice');
  });
});
