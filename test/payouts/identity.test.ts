import { describe, expect, it } from 'vitest';
import { identityOf, sameIdentity, sessionNamedRole } from '../../lib/payouts/identity.js';
import type { Principal } from '../../lib/payouts/model.js';
import { ConfigurationError, parseRuntimeEnv } from '../../lib/runtime/runtime-config.js';

const user = (id: string): Principal => ({ id, kind: 'user' });
const base = {
  TABLE_NAME: 't',
  PROVIDER_BASE_URL: 'http://127.0.0.1:1',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:2',
  PROVIDER_TOKEN: 't',
  PROVIDER_PIN: 'p',
};

describe('identityOf', () => {
  it('trims and ignores case, so ALICE is alice', () => {
    expect(sameIdentity(user(' ALICE '), user('alice'))).toBe(true);
    expect(sameIdentity(user('alice'), user('bob'))).toBe(false);
  });

  it('collapses every session of a role to the role, whatever session name the caller typed', () => {
    expect(identityOf(user('arn:aws:sts::123456789012:assumed-role/PayoutOps/alice'))).toBe(
      'arn:aws:iam::123456789012:role/payoutops',
    );
    expect(
      sameIdentity(
        user('arn:aws:sts::123456789012:assumed-role/PayoutOps/alice'),
        user('arn:aws:sts::123456789012:assumed-role/PayoutOps/bob'),
      ),
    ).toBe(true);
  });

  it('keeps the person of a session-named role (the #suffix principalOf appends) and ignores its case', () => {
    const alice = user('arn:aws:sts::123456789012:assumed-role/Approvers/alice#alice');
    expect(identityOf(alice)).toBe('arn:aws:iam::123456789012:role/approvers#alice');
    expect(sameIdentity(alice, user('arn:aws:sts::123456789012:assumed-role/Approvers/ALICE#ALICE'))).toBe(
      true,
    );
    expect(sameIdentity(alice, user('arn:aws:sts::123456789012:assumed-role/Approvers/bob#bob'))).toBe(false);
  });

  it('does not tell the same role apart across accounts as one identity', () => {
    expect(
      sameIdentity(
        user('arn:aws:sts::111111111111:assumed-role/Ops/a'),
        user('arn:aws:sts::222222222222:assumed-role/Ops/a'),
      ),
    ).toBe(false);
  });

  it('makes every federated user of an account one identity: their names are chosen by the caller', () => {
    expect(
      sameIdentity(
        user('arn:aws:sts::123456789012:federated-user/alice'),
        user('arn:aws:sts::123456789012:federated-user/bob'),
      ),
    ).toBe(true);
  });
});

describe('sessionNamedRole', () => {
  it('matches exact names and * prefixes without case, never a bare *', () => {
    expect(sessionNamedRole('AWSReservedSSO_PayoutOps_abc', ['awsreservedsso_payoutops_*'])).toBe(true);
    expect(sessionNamedRole('PayoutApprovers', ['PayoutApprovers'])).toBe(true);
    expect(sessionNamedRole('PayoutApproversX', ['PayoutApprovers'])).toBe(false);
    expect(sessionNamedRole('Anything', ['*', ''])).toBe(false);
  });

  it('refuses a bare * or a malformed name in OPS_SESSION_NAMED_ROLES at start-up', () => {
    expect(parseRuntimeEnv({ ...base, OPS_SESSION_NAMED_ROLES: 'A_*, B' }).OPS_SESSION_NAMED_ROLES).toEqual([
      'A_*',
      'B',
    ]);
    expect(parseRuntimeEnv(base).OPS_SESSION_NAMED_ROLES).toEqual([]);
    expect(() => parseRuntimeEnv({ ...base, OPS_SESSION_NAMED_ROLES: '*' })).toThrow(ConfigurationError);
    expect(() => parseRuntimeEnv({ ...base, OPS_SESSION_NAMED_ROLES: 'role/x' })).toThrow(
      /OPS_SESSION_NAMED_ROLES/,
    );
  });
});
