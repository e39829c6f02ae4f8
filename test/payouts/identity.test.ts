import { describe, expect, it } from 'vitest';
import { identityOf, sameIdentity, sessionNamedRole } from '../../lib/controls/identity.js';
import type { Principal } from '../../lib/controls/index.js';
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
  it('is the user pool sub for a person a local token named, whatever username is shown beside it', () => {
    const sub = '6dd94d45-bba0-4ea3-9494-359a3a2a1f51';
    expect(identityOf(user(`alice#cognito:${sub}`))).toBe(`person/cognito:${sub}`);
    expect(sameIdentity(user(`alice#cognito:${sub}`), user(`renamed#cognito:${sub}`))).toBe(true);
    expect(sameIdentity(user(`alice#cognito:${sub}`), user('alice'))).toBe(false);
  });

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

  it('keeps the person of a session-named role (the #suffix operatorOf appends) and ignores its case', () => {
    const alice = user('arn:aws:sts::123456789012:assumed-role/Approvers/alice#alice');
    expect(identityOf(alice)).toBe('arn:aws:iam::123456789012:person/alice');
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

/**
 * The cross-role defect: a vouched session was `role/<role>#<person>`, so one person reaching the API through two
 * roles (two Identity Center permission sets, or an IAM user and a role bound to that user) was two identities
 * and could approve their own request. A vouched person is now the person alone, one namespace per account.
 */
describe('identityOf: a vouched person is one identity across roles', () => {
  const ACCOUNT = '123456789012';
  const session = (role: string, name: string) =>
    user(`arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${name}#${name}`);
  const ops = (name: string) => session('AWSReservedSSO_PayoutOps_0123456789abcdef', name);
  const admin = (name: string) => session('AWSReservedSSO_PayoutAdmin_fedcba9876543210', name);
  const iamUser = (name: string) => user(`arn:aws:iam::${ACCOUNT}:user/${name}`);

  it('is the same person through two Identity Center permission sets', () => {
    expect(identityOf(ops('alice@example.com'))).toBe(`arn:aws:iam::${ACCOUNT}:person/alice@example.com`);
    expect(sameIdentity(ops('alice@example.com'), admin('alice@example.com'))).toBe(true);
  });

  it('is the same person as an IAM user and through a vouched role bound to that user, whatever the path', () => {
    expect(identityOf(iamUser('alice'))).toBe(`arn:aws:iam::${ACCOUNT}:person/alice`);
    expect(sameIdentity(iamUser('alice'), session('PayoutApprovers', 'alice'))).toBe(true);
    expect(sameIdentity(iamUser('payments/ops/alice'), session('PayoutApprovers', 'alice'))).toBe(true);
    expect(sameIdentity(iamUser('payments/ops/alice'), iamUser('alice'))).toBe(true);
  });

  it('ignores the case of the session name across roles and against an IAM user', () => {
    expect(sameIdentity(ops('Alice@Example.COM'), admin('alice@example.com'))).toBe(true);
    expect(sameIdentity(iamUser('Alice'), session('PayoutApprovers', 'ALICE'))).toBe(true);
    expect(sameIdentity(user(` ${ops('ALICE@example.com').id} `), admin('alice@EXAMPLE.com'))).toBe(true);
  });

  it('recognises a stored identity of the previous form role/<role>#<person> as that person', () => {
    const stored = user(
      `arn:aws:iam::${ACCOUNT}:role/awsreservedsso_payoutops_0123456789abcdef#alice@example.com`,
    );
    expect(identityOf(stored)).toBe(`arn:aws:iam::${ACCOUNT}:person/alice@example.com`);
    expect(sameIdentity(stored, admin('alice@example.com'))).toBe(true);
    expect(sameIdentity(stored, user(`arn:aws:iam::${ACCOUNT}:person/Alice@Example.com`))).toBe(true);
    expect(sameIdentity(user(`arn:aws:iam::${ACCOUNT}:role/PayoutApprovers#ALICE`), iamUser('alice'))).toBe(
      true,
    );
    expect(sameIdentity(stored, admin('bob@example.com'))).toBe(false);
  });

  it('keeps two different people in the same vouched role apart', () => {
    expect(sameIdentity(ops('alice@example.com'), ops('bob@example.com'))).toBe(false);
    expect(sameIdentity(session('PayoutApprovers', 'alice'), session('PayoutApprovers', 'bob'))).toBe(false);
    expect(sameIdentity(iamUser('alice'), session('PayoutApprovers', 'bob'))).toBe(false);
  });

  it('keeps every session of a role that is not vouched one identity, apart from the people', () => {
    const unvouched = (name: string) => user(`arn:aws:sts::${ACCOUNT}:assumed-role/PayoutOps/${name}`);
    expect(identityOf(unvouched('alice'))).toBe(`arn:aws:iam::${ACCOUNT}:role/payoutops`);
    expect(sameIdentity(unvouched('alice'), unvouched('bob'))).toBe(true);
    expect(sameIdentity(unvouched('alice'), iamUser('alice'))).toBe(false);
  });

  it('keeps a person of one account apart from the same name in another account', () => {
    expect(sameIdentity(iamUser('alice'), user('arn:aws:iam::210987654321:user/alice'))).toBe(false);
  });

  it('never tells apart two principals the previous derivation made one identity', () => {
    // The derivation before persons had their own namespace, verbatim: every pair it merged must stay merged,
    // or a stored record could be approved by someone who could not approve it before.
    const previous = (id: string): string => {
      const trimmed = id.trim();
      const assumed =
        /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([\w+=,.@-]+)\/([\w+=,.@-]+)(?:#(.+))?$/.exec(trimmed);
      if (assumed) {
        const [, partition, account, role, , person] = assumed;
        const base = `arn:${partition}:iam::${account}:role/${role}`.toLowerCase();
        return person === undefined ? base : `${base}#${person.trim().toLowerCase()}`;
      }
      const federated = /^arn:(aws[a-z-]*):sts::(\d{12}):federated-user\/.+$/.exec(trimmed);
      if (federated) return `arn:${federated[1]}:sts::${federated[2]}:federated-user`;
      return trimmed.toLowerCase();
    };
    const ids = [
      'alice',
      ' ALICE ',
      'bob',
      'system:recurrence',
      `arn:aws:iam::${ACCOUNT}:user/alice`,
      `arn:aws:iam::${ACCOUNT}:user/Alice`,
      `arn:aws:iam::${ACCOUNT}:user/ops/alice`,
      `arn:aws:iam::${ACCOUNT}:role/payoutops`,
      `arn:aws:iam::${ACCOUNT}:role/payoutops#alice`,
      `arn:aws:iam::${ACCOUNT}:role/PayoutOps#Alice`,
      `arn:aws:iam::${ACCOUNT}:person/alice`,
      `arn:aws:sts::${ACCOUNT}:assumed-role/PayoutOps/alice`,
      `arn:aws:sts::${ACCOUNT}:assumed-role/PayoutOps/bob`,
      `arn:aws:sts::${ACCOUNT}:assumed-role/PayoutOps/alice#alice`,
      `arn:aws:sts::${ACCOUNT}:assumed-role/PayoutOps/ALICE#ALICE`,
      `arn:aws:sts::${ACCOUNT}:assumed-role/PayoutAdmin/alice#alice`,
      `arn:aws:sts::${ACCOUNT}:assumed-role/PayoutOps/bob#bob`,
      `ARN:AWS:STS::${ACCOUNT}:ASSUMED-ROLE/PayoutOps/alice`,
      `arn:aws:sts::${ACCOUNT}:federated-user/alice`,
      `arn:aws:sts::${ACCOUNT}:federated-user/bob`,
      `arn:aws:sts::${ACCOUNT}:federated-user`,
      `arn:aws-cn:sts::${ACCOUNT}:assumed-role/PayoutOps/alice#alice`,
      'arn:aws:sts::210987654321:assumed-role/PayoutOps/alice#alice',
    ];
    for (const a of ids) {
      for (const b of ids) {
        if (previous(a) === previous(b)) expect([a, b, sameIdentity(user(a), user(b))]).toEqual([a, b, true]);
      }
    }
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
