import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandler, apiRoutes, createApiHandler } from '../../lib/api/index.js';
import { apiContextFrom } from '../../lib/api/services-from-runtime.js';
import { DynamoDbOperatorStore } from '../../lib/operators/index.js';
import { checkedAgainstContract } from './support/contract.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from './support/harness.js';

const ACCOUNT = '123456789012';
const FORBIDDEN = 'urn:payout-automation:problem:forbidden';
const IDENTITY_POOL = 'eu-west-1:11111111-2222-3333-4444-555555555555';
const USER_POOL_PROVIDER = 'cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Operators';
/** The operator groups' roles, as the stack names them, and a machine's. */
const GROUP_ROLE = { requester: 'payouts-dev-requester', approver: 'payouts-dev-approver' } as const;
const assumed = (role: string, session: string) => `arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${session}`;
/** What API Gateway reports for credentials the identity pool issued to user pool user `sub`. */
const signedInAs = (sub: string, identityPoolId = IDENTITY_POOL) => ({
  identityPoolId,
  amr: ['authenticated', USER_POOL_PROVIDER, `${USER_POOL_PROVIDER}:CognitoSignIn:${sub}`],
});

let h: ApiHarness;
let aws: ApiHandler;
let n = 0;
const key = () => `roles-${Date.now()}-${++n}`;

beforeAll(async () => {
  h = await startApiHarness({ env: { APPROVAL_THRESHOLD_KOBO: '10000000' } });
  aws = checkedAgainstContract(
    createApiHandler({
      ...apiContextFrom(h.runtime),
      mode: 'aws',
      apiRoles: {
        [GROUP_ROLE.requester]: ['viewer', 'requester'],
        [GROUP_ROLE.approver]: ['viewer', 'approver'],
        'payouts-ci': ['requester'],
      },
      operatorPool: { identityPoolId: IDENTITY_POOL, userPoolProvider: USER_POOL_PROVIDER },
    }),
  );
});
afterAll(async () => h?.close());

const large = () => bankTransfer({ amount: 20_000_000 });
async function requested(who: { principal?: string; headers?: Record<string, string> }) {
  const created = await call(h.api, {
    method: 'POST',
    path: '/payouts',
    body: large(),
    ...who,
    headers: { 'Idempotency-Key': key(), ...who.headers },
  });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('pending_approval');
  return created.body.id as string;
}
/** POST /payouts/{id}/approve by `principal` holding `roles` (X-Ops-Roles). */
const approveAs = (id: string, principal: string, roles: string) =>
  call(h.api, {
    method: 'POST',
    path: `/payouts/${id}/approve`,
    headers: { 'X-Ops-Roles': roles },
    principal,
  });
const statusOf = async (id: string) =>
  (await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status as string;

describe('roles enforced by the API (local mode, X-Ops-Roles)', () => {
  it('refuses a viewer every route that changes something, 403 naming the role, before anything is read or sent', async () => {
    const changing = apiRoutes.filter((route) => route.method !== 'GET');
    expect(changing.length).toBeGreaterThan(20);
    const itemsBefore = (await h.items()).length;
    const requestsBefore = JSON.stringify(h.sandbox.stats().requests);
    for (const route of changing) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'date' ? '2026-01-02' : 'x1',
      );
      const reply = await call(h.api, {
        method: route.method,
        path,
        headers: { 'X-Ops-Roles': 'viewer', 'Idempotency-Key': key() },
        body: {},
        principal: 'vera',
      });
      expect({ route: `${route.method} ${route.path}`, status: reply.status, type: reply.body.type }).toEqual(
        {
          route: `${route.method} ${route.path}`,
          status: 403,
          type: FORBIDDEN,
        },
      );
      expect(reply.body.detail).toContain(`needs the ${route.role} role`);
    }
    expect((await h.items()).length).toBe(itemsBefore);
    expect(JSON.stringify(h.sandbox.stats().requests)).toBe(requestsBefore);
  });

  it('lets a viewer read', async () => {
    const reply = await call(h.api, {
      method: 'GET',
      path: '/payouts',
      headers: { 'X-Ops-Roles': 'viewer' },
      principal: 'vera',
    });
    expect(reply.status).toBe(200);
  });

  it('refuses a requester approving, though someone else asked: approving is the approver role', async () => {
    const id = await requested({ principal: 'alice' });
    const reply = await approveAs(id, 'dave', 'viewer,requester');
    expect(reply).toMatchObject({ status: 403, body: { type: FORBIDDEN } });
    expect(await statusOf(id)).toBe('pending_approval');
  });

  it('refuses an approver approving their own request whatever roles they hold', async () => {
    const id = await requested({ principal: 'bob', headers: { 'X-Ops-Roles': 'requester,approver,admin' } });
    const reply = await approveAs(id, 'bob', 'requester,approver,admin');
    expect(reply).toMatchObject({
      status: 403,
      body: { type: 'urn:payout-automation:problem:approval-forbidden' },
    });
    expect(await statusOf(id)).toBe('pending_approval');
  });

  it('lets an approver approve what another person requested', async () => {
    const id = await requested({ principal: 'alice', headers: { 'X-Ops-Roles': 'requester' } });
    const reply = await approveAs(id, 'bob', 'approver');
    expect(reply.status).toBe(200);
    expect(reply.body.approvedBy).toEqual({ id: 'bob', kind: 'user' });
    expect(await statusOf(id)).not.toBe('pending_approval');
  });

  it("keeps pausing to an admin, and records the admin's name on the pause", async () => {
    const pauseAs = (principal: string, roles: string) =>
      call(h.api, {
        method: 'POST',
        path: '/controls/pause',
        headers: { 'X-Ops-Roles': roles },
        body: { reason: 'month-end freeze' },
        principal,
      });
    const refused = await pauseAs('bob', 'viewer,requester,approver');
    expect(refused).toMatchObject({ status: 403, body: { type: FORBIDDEN } });
    expect((await call(h.api, { method: 'GET', path: '/controls' })).body.paused).toBe(false);
    const paused = await pauseAs('carol', 'admin');
    expect(paused.body).toMatchObject({ paused: true, updatedBy: { id: 'carol', kind: 'user' } });
    await call(h.api, { method: 'POST', path: '/controls/resume', body: {}, principal: 'carol' });
  });

  it('answers 400 naming X-Ops-Roles for a role that does not exist, changing nothing', async () => {
    const reply = await call(h.api, {
      method: 'POST',
      path: '/payouts',
      headers: { 'X-Ops-Roles': 'viewer,superuser', 'Idempotency-Key': key() },
      body: bankTransfer(),
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].path).toBe('X-Ops-Roles');
  });
});

describe('people and machines in AWS (IAM context)', () => {
  /** An above-threshold payout requested through `api` (the AWS-mode handler unless given) by `userArn`. */
  async function requestedInAws(
    userArn: string,
    cognitoIdentity?: ReturnType<typeof signedInAs>,
    api: ApiHandler = aws,
  ) {
    const created = await call(api, {
      method: 'POST',
      path: '/payouts',
      headers: { 'Idempotency-Key': key() },
      body: large(),
      iamUserArn: userArn,
      ...(cognitoIdentity && { cognitoIdentity }),
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; requestedBy: unknown };
  }

  it('refuses an IAM caller whose role no OPS_API_ROLES entry names, whatever it asks', async () => {
    for (const [method, path] of [
      ['GET', '/payouts'],
      ['POST', '/payouts'],
    ] as const) {
      const reply = await call(aws, {
        method,
        path,
        headers: { 'Idempotency-Key': key() },
        body: bankTransfer(),
        iamUserArn: assumed('SomeOtherRole', 'x'),
      });
      expect(reply).toMatchObject({ status: 403, body: { type: FORBIDDEN } });
    }
  });

  it('gives a machine the roles of its role, and nothing more', async () => {
    const created = await call(aws, {
      method: 'POST',
      path: '/payouts',
      headers: { 'Idempotency-Key': key() },
      body: bankTransfer(),
      iamUserArn: assumed('payouts-ci', 'build-1'),
    });
    expect(created.status).toBe(201);
    const read = await call(aws, {
      method: 'GET',
      path: '/payouts',
      iamUserArn: assumed('payouts-ci', 'build-1'),
    });
    expect(read).toMatchObject({ status: 403, body: { type: FORBIDDEN } });
  });

  it("tells two operators of one group role apart by their user pool sub, and records the approver's", async () => {
    const { id } = await requestedInAws(
      assumed(GROUP_ROLE.requester, 'CognitoIdentityCredentials'),
      signedInAs('sub-alice'),
    );
    const approverArn = assumed(GROUP_ROLE.approver, 'CognitoIdentityCredentials');
    const reply = await call(aws, {
      method: 'POST',
      path: `/payouts/${id}/approve`,
      iamUserArn: approverArn,
      cognitoIdentity: signedInAs('sub-bob'),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.approvedBy).toEqual({ id: `${approverArn}#cognito:sub-bob`, kind: 'user' });
  });

  it('refuses with 401 the identity-pool credentials of an operator an admin disabled, before any route runs', async () => {
    const reader = assumed(GROUP_ROLE.approver, 'CognitoIdentityCredentials');
    const read = (sub: string) =>
      call(aws, { method: 'GET', path: '/payouts', iamUserArn: reader, cognitoIdentity: signedInAs(sub) });
    expect((await read('sub-dana')).status).toBe(200);
    // What POST /operators/{username}/disable records with its audit: the marker, by the operator's sub.
    const at = new Date().toISOString();
    await new DynamoDbOperatorStore(h.runtime.dynamoDb, h.tableName).record(
      {
        id: '01J0000000000000000000DANA',
        username: 'dana',
        action: 'disabled',
        actor: { id: 'carol', kind: 'user' },
        at,
        from: { groups: ['approver'], enabled: true },
        to: { groups: ['approver'], enabled: false },
        reason: 'left the company',
      },
      { marker: { sub: 'sub-dana', disabled: true, username: 'dana' } },
    );
    const refused = await read('sub-dana');
    expect(refused).toMatchObject({
      status: 401,
      body: { type: 'urn:payout-automation:problem:unauthenticated' },
    });
    expect(String(refused.body.detail)).toContain('disabled');
    // Another person of the same group role is not.
    expect((await read('sub-bob')).status).toBe(200);
  });

  it('refuses one operator approving their own request through the approver group role', async () => {
    const { id } = await requestedInAws(
      assumed(GROUP_ROLE.requester, 'CognitoIdentityCredentials'),
      signedInAs('sub-carol'),
    );
    const reply = await call(aws, {
      method: 'POST',
      path: `/payouts/${id}/approve`,
      iamUserArn: assumed(GROUP_ROLE.approver, 'CognitoIdentityCredentials'),
      cognitoIdentity: signedInAs('sub-carol'),
    });
    expect(reply).toMatchObject({
      status: 403,
      body: { type: 'urn:payout-automation:problem:approval-forbidden' },
    });
    expect(await statusOf(id)).toBe('pending_approval');
  });

  it("takes no person from another identity pool's credentials: two of its sessions of one role are one identity", async () => {
    const elsewhere = 'eu-west-1:99999999-0000-0000-0000-000000000000';
    const roleArn = assumed(GROUP_ROLE.approver, 'CognitoIdentityCredentials');
    const machines = checkedAgainstContract(
      createApiHandler({
        ...apiContextFrom(h.runtime),
        mode: 'aws',
        apiRoles: { [GROUP_ROLE.approver]: ['requester', 'approver'] },
        operatorPool: { identityPoolId: IDENTITY_POOL, userPoolProvider: USER_POOL_PROVIDER },
      }),
    );
    const created = await requestedInAws(roleArn, signedInAs('sub-dan', elsewhere), machines);
    expect(created.requestedBy).toEqual({ id: roleArn, kind: 'user' });
    const reply = await call(machines, {
      method: 'POST',
      path: `/payouts/${created.id}/approve`,
      iamUserArn: roleArn,
      cognitoIdentity: signedInAs('sub-erin', elsewhere),
    });
    expect(reply).toMatchObject({
      status: 403,
      body: { type: 'urn:payout-automation:problem:approval-forbidden' },
    });
  });
});
