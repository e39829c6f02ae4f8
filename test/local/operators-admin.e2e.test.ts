import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cognitoCall } from '../../lib/local/cognito-api.js';
import { LOCAL_OPERATORS, type LocalUserPool, startLocalUserPool } from '../../lib/local/cognito-local.js';
import { type LocalApiServer, serveApiGatewayHandler } from '../../lib/local/http-to-apigw.js';
import { userPoolTokenVerifier } from '../../lib/local/operator-tokens.js';
import { OPERATOR_GROUPS } from '../../lib/operators/model.js';
import { OPERATOR_ROLES } from '../../lib/operators/roles.js';
import { type ApiHarness, startApiHarness } from '../api/support/harness.js';
import { runCliCaptured } from '../support/cli-run.js';

/**
 * Admins manage the operators of the local user pool through the API, as `npm start` runs it: cognito-local with
 * the seeded operators (and a second admin, erin), the local server verifying their ID tokens, the API behind it
 * (every answer checked against docs/openapi.json, every AWS call against api-operators' role) and the CLI.
 */
let pool: LocalUserPool;
let h: ApiHarness;
let server: LocalApiServer;
let home: string;

const ERIN = { username: 'erin', password: 'erin-local-only-1' };
const passwordOf = (username: string) =>
  username === ERIN.username
    ? ERIN.password
    : (LOCAL_OPERATORS.find((user) => user.username === username)?.password ?? 'unknown');

async function idTokenOf(username: string): Promise<string> {
  const answer = (await cognitoCall(pool.endpoint, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: pool.clientId,
    AuthParameters: { USERNAME: username, PASSWORD: passwordOf(username) },
  })) as { AuthenticationResult: { IdToken: string } };
  return answer.AuthenticationResult.IdToken;
}

const tokens = new Map<string, string>();
async function tokenOf(username: string): Promise<string> {
  const known = tokens.get(username);
  if (known) return known;
  const token = await idTokenOf(username);
  tokens.set(username, token);
  return token;
}

type Answer = { status: number; body: Record<string, unknown> };
async function as(username: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokenOf(username)}` },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const groupsOf = async (username: string) => {
  const answer = await as('carol', 'GET', `/operators/${username}`);
  expect(answer.status).toBe(200);
  return answer.body.groups;
};

const cli = (argv: string[], stdin = '') => runCliCaptured(argv, { home, stdin });

beforeAll(async () => {
  pool = await startLocalUserPool();
  // A second admin, so that a grant one admin proposes can be confirmed by another person.
  const call = (operation: string, body: object) => cognitoCall(pool.endpoint, operation, body);
  await call('AdminCreateUser', {
    UserPoolId: pool.userPoolId,
    Username: ERIN.username,
    MessageAction: 'SUPPRESS',
  });
  await call('AdminSetUserPassword', {
    UserPoolId: pool.userPoolId,
    Username: ERIN.username,
    Password: ERIN.password,
    Permanent: true,
  });
  await call('AdminAddUserToGroup', {
    UserPoolId: pool.userPoolId,
    Username: ERIN.username,
    GroupName: 'admin',
  });
  h = await startApiHarness({
    localPrincipalHeader: 'ignored',
    operatorPool: { userPoolId: pool.userPoolId, endpoint: pool.endpoint },
  });
  server = await serveApiGatewayHandler(h.api, {
    port: 0,
    identity: {
      verifier: userPoolTokenVerifier(pool),
      trustPrincipalHeader: false,
      signIn: { endpoint: pool.endpoint, userPoolId: pool.userPoolId, clientId: pool.clientId },
    },
  });
  home = mkdtempSync(join(tmpdir(), 'payouts-home-'));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await h?.close();
  await pool?.stop();
});

describe('who may manage operators', () => {
  it("the pool's groups are the API's roles", () => {
    expect([...OPERATOR_GROUPS]).toEqual([...OPERATOR_ROLES]);
  });

  it.each(['alice', 'bob', 'viewer'])(
    '%s (not an admin) is refused every operator route with 403',
    async (username) => {
      for (const [method, path, body] of [
        ['GET', '/operators', undefined],
        ['GET', '/operators/alice', undefined],
        [
          'POST',
          '/operators',
          { username: 'mallory', email: 'm@payouts.local', groups: ['admin'], reason: 'x' },
        ],
        ['POST', '/operators/alice/grant', { groups: ['admin'], reason: 'x' }],
        ['POST', '/operators/bob/disable', { reason: 'x' }],
      ] as const) {
        const answer = await as(username, method, path, body);
        expect({ method, path, status: answer.status }).toEqual({ method, path, status: 403 });
      }
      const listed = await as('carol', 'GET', '/operators');
      expect((listed.body.items as { username: string }[]).map((user) => user.username)).not.toContain(
        'mallory',
      );
    },
  );
});

describe('an admin manages operators', () => {
  it('lists every operator with their groups and whether they may sign in', async () => {
    const answer = await as('carol', 'GET', '/operators');
    expect(answer.status).toBe(200);
    expect(answer.body.truncated).toBe(false);
    const byName = Object.fromEntries(
      (answer.body.items as { username: string; groups: string[]; enabled: boolean }[]).map((user) => [
        user.username,
        { groups: user.groups, enabled: user.enabled },
      ]),
    );
    expect(byName).toMatchObject({
      alice: { groups: ['requester'], enabled: true },
      bob: { groups: ['approver'], enabled: true },
      carol: { groups: ['admin'], enabled: true },
      viewer: { groups: ['viewer'], enabled: true },
      erin: { groups: ['admin'], enabled: true },
    });
  });

  it('refuses an invalid invitation with 400 naming the field, and creates no one', async () => {
    const answer = await as('carol', 'POST', '/operators', {
      username: 'frank',
      email: 'not an address',
      groups: ['viewer'],
      reason: 'new analyst',
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body.errors)).toContain('email');
    expect((await as('carol', 'GET', '/operators/frank')).status).toBe(404);
    const unknownGroup = await as('carol', 'POST', '/operators', {
      username: 'frank',
      email: 'frank@payouts.local',
      groups: ['superuser'],
      reason: 'new analyst',
    });
    expect(unknownGroup.status).toBe(400);
    expect(JSON.stringify(unknownGroup.body.errors)).toContain('groups');
  });

  it('invites an operator: viewer at once, a group that moves money only once a second admin confirms it', async () => {
    const invited = await as('carol', 'POST', '/operators', {
      username: 'dave',
      email: 'dave@payouts.local',
      groups: ['viewer', 'approver'],
      reason: 'joins the payments desk',
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({
      applied: false,
      operator: { username: 'dave', groups: ['viewer'], enabled: true, status: 'FORCE_CHANGE_PASSWORD' },
      proposal: { kind: 'grant', groups: ['approver'], status: 'pending', reason: 'joins the payments desk' },
    });
    const proposal = invited.body.proposal as { id: string; proposedBy: { id: string } };
    expect(proposal.proposedBy.id).toMatch(/^carol#cognito:/);

    // The proposer cannot confirm it herself: another person must.
    const own = await as('carol', 'POST', `/operators/dave/proposals/${proposal.id}/confirm`);
    expect(own.status).toBe(403);
    expect(own.body.type).toMatch(/operator-change-forbidden$/);
    expect(await groupsOf('dave')).toEqual(['viewer']);

    const confirmed = await as('erin', 'POST', `/operators/dave/proposals/${proposal.id}/confirm`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({
      applied: true,
      operator: { groups: ['viewer', 'approver'], pendingProposals: [] },
      proposal: { status: 'confirmed' },
    });
    expect((await as('erin', 'POST', `/operators/dave/proposals/${proposal.id}/confirm`)).status).toBe(409);

    const detail = await as('carol', 'GET', '/operators/dave');
    const audit = detail.body.audit as Record<string, unknown>[];
    expect(audit.map((change) => change.action)).toEqual(['invited', 'grant-proposed', 'granted']);
    expect(audit[1]).toMatchObject({
      actor: { id: expect.stringMatching(/^carol#cognito:/) },
      from: { groups: ['viewer'], enabled: true },
      to: { groups: ['viewer', 'approver'], enabled: true },
      reason: 'joins the payments desk',
      proposalId: proposal.id,
    });
    expect(audit[2]).toMatchObject({
      actor: { id: expect.stringMatching(/^erin#cognito:/) },
      proposedBy: { id: expect.stringMatching(/^carol#cognito:/) },
      from: { groups: ['viewer'] },
      to: { groups: ['viewer', 'approver'] },
      at: expect.any(String),
    });
  });

  it('grants viewer alone at once, and a money group only as a proposal (202)', async () => {
    const revoked = await as('carol', 'POST', '/operators/viewer/revoke', {
      groups: ['viewer'],
      reason: 'test',
    });
    expect(revoked.status).toBe(200);
    const viewerAgain = await as('carol', 'POST', '/operators/viewer/grant', {
      groups: ['viewer'],
      reason: 'back',
    });
    expect(viewerAgain.status).toBe(200);
    expect(viewerAgain.body).toMatchObject({ applied: true, operator: { groups: ['viewer'] } });
    const requester = await as('carol', 'POST', '/operators/viewer/grant', {
      groups: ['requester'],
      reason: 'covers for alice',
    });
    expect(requester.status).toBe(202);
    expect(requester.body).toMatchObject({ applied: false, operator: { groups: ['viewer'] } });
    expect(await groupsOf('viewer')).toEqual(['viewer']);
    // Withdrawn: nothing was given.
    const id = (requester.body.proposal as { id: string }).id;
    const cancelled = await as('erin', 'POST', `/operators/viewer/proposals/${id}/cancel`, {
      reason: 'not needed',
    });
    expect(cancelled.status).toBe(200);
    expect((await as('carol', 'POST', `/operators/viewer/proposals/${id}/confirm`)).status).toBe(409);
    expect(await groupsOf('viewer')).toEqual(['viewer']);
  });

  it('removes a group at once: one admin may reduce access', async () => {
    const answer = await as('carol', 'POST', '/operators/dave/revoke', {
      groups: ['approver'],
      reason: 'moved teams',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ applied: true, operator: { groups: ['viewer'] } });
    const audit = (await as('carol', 'GET', '/operators/dave')).body.audit as Record<string, unknown>[];
    expect(audit.at(-1)).toMatchObject({
      action: 'revoked',
      from: { groups: ['viewer', 'approver'] },
      to: { groups: ['viewer'] },
      reason: 'moved teams',
    });
  });

  it('refuses an admin changing their own groups or disabling themselves, and changes nothing', async () => {
    for (const [path, body] of [
      ['/operators/carol/revoke', { groups: ['admin'], reason: 'x' }],
      ['/operators/carol/grant', { groups: ['approver'], reason: 'x' }],
      ['/operators/carol/disable', { reason: 'x' }],
    ] as const) {
      const answer = await as('carol', 'POST', path, body);
      expect({ path, status: answer.status, type: answer.body.type }).toEqual({
        path,
        status: 403,
        type: expect.stringMatching(/operator-change-forbidden$/),
      });
    }
    const carol = await as('erin', 'GET', '/operators/carol');
    expect(carol.body).toMatchObject({ groups: ['admin'], enabled: true, pendingProposals: [], audit: [] });
  });
});

describe('a disabled operator', () => {
  it('is refused with 401 on the token they already hold, and again only once a second admin confirms the enable', async () => {
    const bobToken = await tokenOf('bob');
    expect((await as('bob', 'GET', '/controls')).status).toBe(200);

    const disabled = await as('carol', 'POST', '/operators/bob/disable', { reason: 'left the company' });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({
      applied: true,
      operator: { enabled: false, groups: ['approver'] },
    });

    const refused = await as('bob', 'GET', '/controls');
    expect(refused.status).toBe(401);
    expect(String(refused.body.detail)).toContain('disabled');
    // The OpenAPI document reads no stored data: its function (api-docs) has no table to look the marker up in.
    expect((await as('bob', 'GET', '/openapi.json')).status).toBe(200);
    // cognito-local 5.3.0 still signs a disabled user in (Cognito itself refuses): the API refuses that token too.
    const fresh = await idTokenOf('bob');
    expect(fresh).not.toBe(bobToken);
    const again = await fetch(`${server.url}/controls`, { headers: { authorization: `Bearer ${fresh}` } });
    expect(again.status).toBe(401);

    // Bob holds a group that moves money: enabling him gives it back, so it takes a second admin.
    const enable = await as('carol', 'POST', '/operators/bob/enable', { reason: 'rehired' });
    expect(enable.status).toBe(202);
    expect((await as('bob', 'GET', '/controls')).status).toBe(401);
    const id = (enable.body.proposal as { id: string }).id;
    const confirmed = await as('erin', 'POST', `/operators/bob/proposals/${id}/confirm`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ operator: { enabled: true, groups: ['approver'] } });
    expect((await as('bob', 'GET', '/controls')).status).toBe(200);
    const audit = (await as('carol', 'GET', '/operators/bob')).body.audit as Record<string, unknown>[];
    expect(audit.map((change) => [change.action, change.reason])).toEqual([
      ['disabled', 'left the company'],
      ['enable-proposed', 'rehired'],
      ['enabled', 'rehired'],
    ]);
  });
});

describe('the CLI manages operators', () => {
  it('lists operators by name and proposes a grant with --groups', async () => {
    const login = await cli(
      ['--api', server.url, 'login', '--user', 'carol', '--password-stdin'],
      `${passwordOf('carol')}\n`,
    );
    expect(login.status, login.err).toBe(0);
    const listed = await cli(['--api', server.url, '--principal', 'carol', 'operators', 'list']);
    expect(listed.status, listed.err).toBe(0);
    expect(listed.out).toMatch(/^USERNAME +EMAIL +GROUPS +ENABLED +STATUS +CREATEDAT\n/);
    expect(listed.out).toMatch(/\ndave +dave@payouts\.local +viewer +true +FORCE_CHANGE_PASSWORD /);
    expect(listed.out).toMatch(/\nbob +bob@payouts\.local +approver +true +CONFIRMED /);
    const granted = await cli([
      '--api',
      server.url,
      '--principal',
      'carol',
      '--json',
      'operators',
      'grant',
      'dave',
      '--groups',
      'requester,approver',
      '--reason',
      'back on the desk',
    ]);
    expect(granted.status, granted.err).toBe(0);
    expect(JSON.parse(granted.out)).toMatchObject({
      applied: false,
      proposal: { groups: ['requester', 'approver'], reason: 'back on the desk' },
    });
    const own = await cli([
      '--api',
      server.url,
      '--principal',
      'carol',
      'operators',
      'confirm',
      'dave',
      JSON.parse(granted.out).proposal.id,
    ]);
    expect(own.status).toBe(1);
    expect(own.err).toContain('HTTP 403');
  });
});
