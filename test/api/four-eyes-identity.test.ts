import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandler, createApiHandler } from '../../lib/api/index.js';
import { apiContextFrom } from '../../lib/api/services-from-runtime.js';
import { checkedAgainstContract } from './support/contract.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from './support/harness.js';

/**
 * Maker and checker are compared as stable identities, never as raw strings. Each test is one way a requester
 * tried to approve their own payout; the payout must stay `pending_approval`.
 */

const ACCOUNT = '123456789012';
const role = (name: string, session: string) => `arn:aws:sts::${ACCOUNT}:assumed-role/${name}/${session}`;
const IDENTITY_CENTER_ROLE = 'AWSReservedSSO_PayoutOps_0123456789abcdef';
/** A second Identity Center permission set: the same person reaches the API through another role. */
const SECOND_PERMISSION_SET_ROLE = 'AWSReservedSSO_PayoutAdmin_fedcba9876543210';

let h: ApiHarness;
let local: ApiHandler;
let n = 0;

beforeAll(async () => {
  h = await startApiHarness({
    mode: 'aws',
    env: {
      APPROVAL_THRESHOLD_KOBO: '10000000',
      OPS_SESSION_NAMED_ROLES: 'AWSReservedSSO_PayoutOps_*, AWSReservedSSO_PayoutAdmin_*, PayoutApprovers',
      // Every caller below may request and approve: what is tested here is who counts as the same person.
      OPS_API_ROLES: JSON.stringify(
        Object.fromEntries(
          ['AWSReservedSSO_Payout*', 'PayoutApprovers', 'PayoutOperators', 'PayoutOps', 'user/alice'].map(
            (caller) => [caller, ['viewer', 'requester', 'approver']],
          ),
        ),
      ),
    },
  });
  local = checkedAgainstContract(createApiHandler({ ...apiContextFrom(h.runtime), mode: 'local' }));
});
afterAll(async () => h?.close());

const large = () => bankTransfer({ amount: 20_000_000 });

async function requestAs(api: ApiHandler, who: { principal?: string; iamUserArn?: string }) {
  const created = await call(api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'Idempotency-Key': `four-eyes-${++n}` },
    body: large(),
    ...who,
  });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('pending_approval');
  return created.body.id as string;
}

async function approveAs(api: ApiHandler, id: string, who: { principal?: string; iamUserArn?: string }) {
  return call(api, { method: 'POST', path: `/payouts/${id}/approve`, ...who });
}

async function expectStillWaiting(id: string) {
  const after = await call(local, { method: 'GET', path: `/payouts/${id}` });
  expect(after.body.status).toBe('pending_approval');
  expect(after.body.approvedBy).toBeUndefined();
}

describe('four eyes by stable identity (local X-Ops-Principal)', () => {
  it('refuses X-Ops-Principal: ALICE approving the payout alice requested', async () => {
    const id = await requestAs(local, { principal: 'alice' });
    const reply = await approveAs(local, id, { principal: 'ALICE' });
    expect(reply.status).toBe(403);
    expect(reply.body.type).toBe('urn:payout-automation:problem:approval-forbidden');
    await expectStillWaiting(id);
  });

  it('still lets a different person approve', async () => {
    const id = await requestAs(local, { principal: 'alice' });
    const reply = await approveAs(local, id, { principal: 'bob' });
    expect(reply.status).toBe(200);
    expect(reply.body.approvedBy).toEqual({ id: 'bob', kind: 'user' });
  });
});

describe('four eyes by stable identity (AWS, IAM principal of the signed request)', () => {
  it('refuses a second session of the requester’s role approving under a session name it chose', async () => {
    const id = await requestAs(h.api, { iamUserArn: role('PayoutOps', 'alice') });
    const reply = await approveAs(h.api, id, { iamUserArn: role('PayoutOps', 'bob') });
    expect(reply.status).toBe(403);
    await expectStillWaiting(id);
  });

  it('refuses the same IAM user approving under another spelling of its name', async () => {
    const id = await requestAs(h.api, { iamUserArn: `arn:aws:iam::${ACCOUNT}:user/Alice` });
    const reply = await approveAs(h.api, id, { iamUserArn: `arn:aws:iam::${ACCOUNT}:user/alice` });
    expect(reply.status).toBe(403);
    await expectStillWaiting(id);
  });

  it('refuses the same Identity Center user approving in another case or through another session', async () => {
    const id = await requestAs(h.api, { iamUserArn: role(IDENTITY_CENTER_ROLE, 'alice@example.com') });
    const reply = await approveAs(h.api, id, { iamUserArn: role(IDENTITY_CENTER_ROLE, 'ALICE@example.com') });
    expect(reply.status).toBe(403);
    await expectStillWaiting(id);
  });

  it('refuses a federated user (GetFederationToken) every change: its name is whatever the caller chose', async () => {
    const federated = (name: string) => `arn:aws:sts::${ACCOUNT}:federated-user/${name}`;
    const id = await requestAs(h.api, { iamUserArn: role('PayoutOps', 'alice') });
    const reply = await approveAs(h.api, id, { iamUserArn: federated('bob') });
    expect(reply.status).toBe(403);
    expect(reply.body.type).toBe('urn:payout-automation:problem:forbidden');
    await expectStillWaiting(id);
  });

  it('tells two people apart through a session-named role and records who approved', async () => {
    const id = await requestAs(h.api, { iamUserArn: role(IDENTITY_CENTER_ROLE, 'alice@example.com') });
    const reply = await approveAs(h.api, id, { iamUserArn: role(IDENTITY_CENTER_ROLE, 'bob@example.com') });
    expect(reply.status).toBe(200);
    expect(reply.body.approvedBy).toEqual({
      id: `${role(IDENTITY_CENTER_ROLE, 'bob@example.com')}#bob@example.com`,
      kind: 'user',
    });
  });

  it('ignores X-Ops-Principal in AWS: the header cannot turn one caller into another', async () => {
    const id = await requestAs(h.api, { iamUserArn: role('PayoutOps', 'alice') });
    const reply = await approveAs(h.api, id, {
      iamUserArn: role('PayoutOps', 'alice'),
      principal: 'bob',
    });
    expect(reply.status).toBe(403);
    await expectStillWaiting(id);
  });
});

/**
 * The cross-role defect: a vouched session's identity was its role plus the person, so one person could request
 * through one role and approve through another. A vouched person is now one identity, whichever role they use.
 */
describe('four eyes across roles: a vouched person is one identity whichever role they come through', () => {
  const iamUser = (name: string) => `arn:aws:iam::${ACCOUNT}:user/${name}`;

  it('refuses alice approving through a second Identity Center permission set the payout she requested', async () => {
    const id = await requestAs(h.api, { iamUserArn: role(IDENTITY_CENTER_ROLE, 'alice@example.com') });
    const reply = await approveAs(h.api, id, {
      iamUserArn: role(SECOND_PERMISSION_SET_ROLE, 'alice@example.com'),
    });
    expect(reply.status).toBe(403);
    expect(reply.body.type).toBe('urn:payout-automation:problem:approval-forbidden');
    await expectStillWaiting(id);
  });

  it('refuses IAM user alice approving through the vouched role bound to her, and the other way round', async () => {
    const first = await requestAs(h.api, { iamUserArn: iamUser('alice') });
    const viaRole = await approveAs(h.api, first, { iamUserArn: role('PayoutApprovers', 'alice') });
    expect(viaRole.status).toBe(403);
    await expectStillWaiting(first);

    const second = await requestAs(h.api, { iamUserArn: role('PayoutApprovers', 'alice') });
    const asUser = await approveAs(h.api, second, { iamUserArn: iamUser('payments/Alice') });
    expect(asUser.status).toBe(403);
    await expectStillWaiting(second);
  });

  it('refuses the same person across roles when the session name differs only in case', async () => {
    const id = await requestAs(h.api, { iamUserArn: role(IDENTITY_CENTER_ROLE, 'Alice@Example.com') });
    const reply = await approveAs(h.api, id, {
      iamUserArn: role(SECOND_PERMISSION_SET_ROLE, 'alice@EXAMPLE.COM'),
    });
    expect(reply.status).toBe(403);
    await expectStillWaiting(id);
  });

  it('refuses a new-form approver of a request stored under the previous identity form role/<role>#<person>', async () => {
    // A requester stored as the identity the previous derivation returned (`role/<role>#<person>`) is still
    // that person: the approval must not succeed because one side was written in the old form.
    const previousForm = `arn:aws:iam::${ACCOUNT}:role/${IDENTITY_CENTER_ROLE.toLowerCase()}#alice@example.com`;
    const id = await requestAs(local, { principal: previousForm });
    const reply = await approveAs(h.api, id, {
      iamUserArn: role(SECOND_PERMISSION_SET_ROLE, 'alice@example.com'),
    });
    expect(reply.status).toBe(403);
    await expectStillWaiting(id);
  });

  it('still lets a different person in the same vouched role approve, and records who did', async () => {
    const id = await requestAs(h.api, { iamUserArn: iamUser('alice') });
    const reply = await approveAs(h.api, id, { iamUserArn: role('PayoutApprovers', 'bob') });
    expect(reply.status).toBe(200);
    expect(reply.body.approvedBy).toEqual({ id: `${role('PayoutApprovers', 'bob')}#bob`, kind: 'user' });
  });

  it('keeps every session of a role that is not vouched one identity', async () => {
    const id = await requestAs(h.api, { iamUserArn: role('PayoutOperators', 'alice@example.com') });
    const reply = await approveAs(h.api, id, { iamUserArn: role('PayoutOperators', 'bob@example.com') });
    expect(reply.status).toBe(403);
    await expectStillWaiting(id);
  });

  it("leaves alice's own request out of her approvals queue whichever permission set she views it through", async () => {
    const id = await requestAs(h.api, { iamUserArn: role(IDENTITY_CENTER_ROLE, 'alice@example.com') });
    const queue = (iamUserArn: string) =>
      call(h.api, { method: 'GET', path: '/approvals', query: 'kind=payout&limit=1', iamUserArn });
    const forAlice = await queue(role(SECOND_PERMISSION_SET_ROLE, 'Alice@example.com'));
    expect(forAlice.status).toBe(200);
    expect(forAlice.body.items.map((item: { id: string }) => item.id)).not.toContain(id);
    const forBob = await queue(role(SECOND_PERMISSION_SET_ROLE, 'bob@example.com'));
    expect(forBob.body.items.map((item: { id: string }) => item.id)).toContain(id);
  });
});
