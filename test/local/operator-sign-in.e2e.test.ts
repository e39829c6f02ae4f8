import { createSign, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_GROUPS } from '../../infra/constructs/operators.js';
import type { CliIo } from '../../lib/cli/commands.js';
import { cognitoCall } from '../../lib/local/cognito-api.js';
import { LOCAL_OPERATORS, type LocalUserPool, startLocalUserPool } from '../../lib/local/cognito-local.js';
import { type LocalApiServer, serveApiGatewayHandler } from '../../lib/local/http-to-apigw.js';
import { userPoolTokenVerifier } from '../../lib/local/operator-tokens.js';
import { OPERATOR_GROUP_ROLES } from '../../lib/local/verified-caller.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { type ApiHarness, startApiHarness } from '../api/support/harness.js';
import { runCliCaptured } from '../support/cli-run.js';
import { bankTransfer } from '../support/engine-harness.js';

/**
 * The local identity as `npm start` runs it, with real parts: cognito-local with the seeded operators, the local
 * server verifying their ID tokens as API Gateway's JWT authorizer would, the API behind it refusing the header,
 * and the CLI signing in over HTTP.
 */
let pool: LocalUserPool;
let h: ApiHarness;
let server: LocalApiServer;
let home: string;
let bodyFile: string;

const password = (username: string) =>
  LOCAL_OPERATORS.find((user) => user.username === username)?.password ?? 'unknown';

const cli = (argv: string[], stdin = '', askSecret?: CliIo['askSecret']) =>
  runCliCaptured(argv, { home, stdin, ...(askSecret && { askSecret }) });

const loginAs = (username: string) =>
  cli(['--api', server.url, 'login', '--user', username, '--password-stdin'], `${password(username)}\n`);

const as = (username: string) => ['--api', server.url, '--principal', username, '--json'];

/** An ID token of the pool, straight from cognito-local (what `payouts login` stores). */
async function idTokenOf(
  username: string,
  client = pool.clientId,
  endpoint = pool.endpoint,
): Promise<string> {
  const answer = (await cognitoCall(endpoint, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: client,
    AuthParameters: { USERNAME: username, PASSWORD: password(username) },
  })) as { AuthenticationResult: { IdToken: string } };
  return answer.AuthenticationResult.IdToken;
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;

/** A token signed with `pem`: the header cognito-local writes, any payload. */
function signed(payload: object, pem: string): string {
  const unsigned = `${base64url({ alg: 'RS256', typ: 'JWT', kid: 'CognitoLocal' })}.${base64url(payload)}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(pem).toString('base64url')}`;
}

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  pool = await startLocalUserPool();
  h = await startApiHarness({ localPrincipalHeader: 'ignored' });
  server = await serveApiGatewayHandler(h.api, {
    port: 0,
    identity: {
      verifier: userPoolTokenVerifier(pool),
      trustPrincipalHeader: false,
      signIn: { endpoint: pool.endpoint, userPoolId: pool.userPoolId, clientId: pool.clientId },
    },
  });
  home = mkdtempSync(join(tmpdir(), 'payouts-home-'));
  bodyFile = join(home, 'payout.json');
  const amount = payoutEngineOf(h.runtime).ctx.config.approvalThresholdKobo;
  writeFileSync(bodyFile, JSON.stringify(bankTransfer(amount, { narration: 'supplier 48' })));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await h?.close();
  await pool?.stop();
});

describe('signing in to the local stack', () => {
  it('gives the local groups the roles the stack gives its groups', () => {
    const stack = Object.fromEntries(
      Object.entries(OPERATOR_GROUPS).map(([group, { apiRoles }]) => [group, [...apiRoles]]),
    );
    expect(OPERATOR_GROUP_ROLES).toEqual(stack);
  });

  it("lets bob sign in with the CLI and approve alice's payout, each recorded as the person who signed in", async () => {
    const alice = await loginAs('alice');
    expect(alice.status, alice.err).toBe(0);
    expect(alice.out).toContain('signed in as alice (requester)');
    expect(statSync(join(home, 'session-alice.json')).mode & 0o777).toBe(0o600);
    expect((await loginAs('bob')).status).toBe(0);

    const created = await cli([
      ...as('alice'),
      'payouts',
      'create',
      '--key',
      'sign-in-1',
      '--body',
      bodyFile,
    ]);
    expect(created.status, created.err).toBe(0);
    const payout = created.json();
    const aliceSub = payloadOf(await idTokenOf('alice')).sub;
    expect(payout).toMatchObject({
      status: 'pending_approval',
      requestedBy: { id: `alice#cognito:${aliceSub}` },
    });

    const byRequester = await cli([...as('alice'), 'payouts', 'approve', payout.id, '--yes']);
    expect(byRequester.status).toBe(1);
    expect(byRequester.err).toContain('HTTP 403');
    expect(byRequester.err).toContain('needs the approver role');

    const approved = await cli([...as('bob'), 'payouts', 'approve', payout.id, '--yes']);
    expect(approved.status, approved.err).toBe(0);
    const bobSub = payloadOf(await idTokenOf('bob')).sub;
    expect(approved.json()).toMatchObject({ approvedBy: { id: `bob#cognito:${bobSub}` } });
  });

  it('refuses a person their own approval by their sub, whatever groups they hold', async () => {
    await cognitoCall(pool.endpoint, 'AdminAddUserToGroup', {
      UserPoolId: pool.userPoolId,
      Username: 'carol',
      GroupName: 'requester',
    });
    await cognitoCall(pool.endpoint, 'AdminAddUserToGroup', {
      UserPoolId: pool.userPoolId,
      Username: 'carol',
      GroupName: 'approver',
    });
    const carol = await idTokenOf('carol');
    const body = JSON.parse(readFileSync(bodyFile, 'utf8'));
    const created = await call('POST', '/payouts', { ...bearer(carol), 'idempotency-key': 'own-1' }, body);
    expect(created.status).toBe(201);
    const own = await call('POST', `/payouts/${created.body.id}/approve`, bearer(carol), {});
    expect(own.status).toBe(403);
    expect(own.body.type).toMatch(/approval-forbidden$/);
  });

  it('lets a viewer read and change nothing', async () => {
    const viewer = await idTokenOf('viewer');
    expect((await call('GET', '/controls', bearer(viewer))).status).toBe(200);
    const pause = await call('POST', '/controls/pause', bearer(viewer), { reason: 'viewer tries' });
    expect(pause.status).toBe(403);
    const create = await call(
      'POST',
      '/payouts',
      { ...bearer(viewer), 'idempotency-key': 'viewer-1' },
      JSON.parse(readFileSync(bodyFile, 'utf8')),
    );
    expect(create.status).toBe(403);
    expect((await call('GET', '/controls', bearer(viewer))).body.paused).toBe(false);
  });
});

describe('requests the local stack refuses with 401, changing nothing', () => {
  /** Each refused token tries to pause sending; the controls show afterwards that nothing changed. */
  async function refusedPause(headers: Record<string, string>): Promise<string> {
    const answer = await call('POST', '/controls/pause', headers, { reason: 'should not happen' });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ type: expect.stringMatching(/unauthenticated$/), status: 401 });
    const controls = await call('GET', '/controls', bearer(await idTokenOf('viewer')));
    expect(controls.body.paused).toBe(false);
    return String(answer.body.detail);
  }

  it('refuses a request without a token', async () => {
    expect(await refusedPause({})).toContain('payouts login --user NAME');
  });

  it('ignores X-Ops-Principal and X-Ops-Roles: without a token they are refused, with one the token decides', async () => {
    await refusedPause({ 'x-ops-principal': 'carol', 'x-ops-roles': 'admin' });
    const viewer = await idTokenOf('viewer');
    const answer = await call(
      'POST',
      '/controls/pause',
      { ...bearer(viewer), 'x-ops-principal': 'carol', 'x-ops-roles': 'admin' },
      { reason: 'the header names an admin' },
    );
    expect(answer.status).toBe(403);
  });

  it('refuses a token signed with another key', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = signed(
      payloadOf(await idTokenOf('carol')),
      privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    await refusedPause(bearer(forged));
  });

  it('refuses a token whose groups were edited after it was signed', async () => {
    const [header, , signature] = (await idTokenOf('viewer')).split('.');
    const edited = { ...payloadOf(await idTokenOf('viewer')), 'cognito:groups': ['admin'] };
    await refusedPause(bearer(`${header}.${base64url(edited)}.${signature}`));
  });

  it('refuses an expired token, even one signed with the pool key', async () => {
    // cognito-local signs with a key shipped in its package: an expired token with every other claim right.
    const key = createRequire(import.meta.url)('cognito-local/lib/keys/cognitoLocal.private.json') as {
      pem: string;
    };
    const now = Math.floor(Date.now() / 1000);
    const expired = signed(
      { ...payloadOf(await idTokenOf('carol')), iat: now - 7200, exp: now - 3600 },
      key.pem,
    );
    expect(await refusedPause(bearer(expired))).toContain('expired');
  });

  it("refuses another pool's token, and an access token of this one", async () => {
    const other = (await cognitoCall(pool.endpoint, 'CreateUserPool', { PoolName: 'elsewhere' })) as {
      UserPool: { Id: string };
    };
    const client = (await cognitoCall(pool.endpoint, 'CreateUserPoolClient', {
      UserPoolId: other.UserPool.Id,
      ClientName: 'elsewhere',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'],
    })) as { UserPoolClient: { ClientId: string } };
    await cognitoCall(pool.endpoint, 'AdminCreateUser', {
      UserPoolId: other.UserPool.Id,
      Username: 'carol',
      MessageAction: 'SUPPRESS',
    });
    await cognitoCall(pool.endpoint, 'AdminSetUserPassword', {
      UserPoolId: other.UserPool.Id,
      Username: 'carol',
      Password: password('carol'),
      Permanent: true,
    });
    await cognitoCall(pool.endpoint, 'CreateGroup', { UserPoolId: other.UserPool.Id, GroupName: 'admin' });
    await cognitoCall(pool.endpoint, 'AdminAddUserToGroup', {
      UserPoolId: other.UserPool.Id,
      Username: 'carol',
      GroupName: 'admin',
    });
    await refusedPause(bearer(await idTokenOf('carol', client.UserPoolClient.ClientId)));

    const access = (await cognitoCall(pool.endpoint, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: pool.clientId,
      AuthParameters: { USERNAME: 'carol', PASSWORD: password('carol') },
    })) as { AuthenticationResult: { AccessToken: string } };
    await refusedPause(bearer(access.AuthenticationResult.AccessToken));
  });
});

describe('what the local authorizer hands the API', () => {
  /** The local server with the pool's verifier in front of a handler that answers with the event it was given. */
  async function echoServer(trustPrincipalHeader: boolean) {
    return serveApiGatewayHandler(
      async (event) => ({
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ headers: event.headers, requestContext: event.requestContext }),
      }),
      {
        port: 0,
        identity: {
          verifier: userPoolTokenVerifier(pool),
          trustPrincipalHeader,
          signIn: { endpoint: pool.endpoint, userPoolId: pool.userPoolId, clientId: pool.clientId },
        },
      },
    );
  }

  it("puts a verified token's claims where API Gateway's JWT authorizer does, and drops the token and the identity headers", async () => {
    const echo = await echoServer(false);
    try {
      const token = await idTokenOf('bob');
      const answer = await fetch(`${echo.url}/controls`, {
        headers: { authorization: `Bearer ${token}`, 'x-ops-principal': 'carol', 'x-ops-roles': 'admin' },
      });
      const seen = (await answer.json()) as {
        headers: Record<string, string>;
        requestContext: { authorizer: { jwt: { claims: Record<string, unknown> } } };
      };
      expect(seen.requestContext.authorizer.jwt.claims).toMatchObject({
        sub: payloadOf(token).sub,
        'cognito:username': 'bob',
        'cognito:groups': '[approver]',
        token_use: 'id',
      });
      expect(seen.headers.authorization).toBeUndefined();
      expect(seen.headers['x-ops-principal']).toBeUndefined();
      expect(seen.headers['x-ops-roles']).toBeUndefined();
    } finally {
      await echo.close();
    }
  });

  it('with LOCAL_TRUST_PRINCIPAL_HEADER=1 passes a request without a token on as it came, and still refuses a bad token', async () => {
    const echo = await echoServer(true);
    try {
      const named = await fetch(`${echo.url}/controls`, { headers: { 'x-ops-principal': 'alice' } });
      expect(named.status).toBe(200);
      const seen = (await named.json()) as { headers: Record<string, string>; requestContext: object };
      expect(seen.headers['x-ops-principal']).toBe('alice');
      expect(seen.requestContext).not.toHaveProperty('authorizer');
      const forged = await fetch(`${echo.url}/controls`, { headers: { authorization: 'Bearer a.b.c' } });
      expect(forged.status).toBe(401);
    } finally {
      await echo.close();
    }
  });

  it('tells the CLI where to sign in, and nothing more', async () => {
    const answer = await fetch(`${server.url}/__local/sign-in`);
    expect(await answer.json()).toEqual({
      endpoint: pool.endpoint,
      userPoolId: pool.userPoolId,
      clientId: pool.clientId,
    });
  });
});

describe('renewing an expired session with its refresh token', () => {
  /** The stored session of `username`, with its ID token made to look expired (as an hour later). */
  function expire(username: string, changes: Record<string, unknown> = {}) {
    const path = join(home, `session-${username}.json`);
    const session = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify({ ...session, expiresAt: '2020-01-01T00:00:00.000Z', ...changes }));
    return { path, before: session as { idToken: string; refreshToken: string } };
  }

  it('keeps the refresh token of a sign-in in the 0600 session file', async () => {
    expect((await loginAs('alice')).status).toBe(0);
    const path = join(home, 'session-alice.json');
    expect(JSON.parse(readFileSync(path, 'utf8')).refreshToken).toMatch(/\S{20,}/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('payouts token renews an expired ID token against the pool and stores it', async () => {
    expect((await loginAs('alice')).status).toBe(0);
    const { path, before } = expire('alice');
    const answer = await cli([...as('alice'), 'token']);
    expect(answer.status, answer.err).toBe(0);
    const token = answer.out.trim();
    expect(payloadOf(token)).toMatchObject({ 'cognito:username': 'alice', token_use: 'id' });
    expect(Number(payloadOf(token).exp) * 1000).toBeGreaterThan(Date.now());
    const stored = JSON.parse(readFileSync(path, 'utf8'));
    expect(stored).toMatchObject({ idToken: token, refreshToken: before.refreshToken });
    expect(Date.parse(stored.expiresAt)).toBeGreaterThan(Date.now());
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // The renewed token is one the stack takes.
    expect((await call('GET', '/controls', bearer(token))).status).toBe(200);
  });

  it('every CLI call renews an expired ID token before it sends', async () => {
    expect((await loginAs('viewer')).status).toBe(0);
    const { path } = expire('viewer');
    const answer = await cli([...as('viewer'), 'controls', 'show']);
    expect(answer.status, answer.err).toBe(0);
    expect(answer.json()).toMatchObject({ paused: false });
    expect(Date.parse(JSON.parse(readFileSync(path, 'utf8')).expiresAt)).toBeGreaterThan(Date.now());
  });

  it('says to sign in again when the pool refuses the refresh token, without a stack trace, and sends nothing', async () => {
    expect((await loginAs('viewer')).status).toBe(0);
    expire('viewer', { refreshToken: 'a-refresh-token-the-pool-never-issued' });
    for (const argv of [
      [...as('viewer'), 'token'],
      [...as('viewer'), 'controls', 'show'],
    ]) {
      const answer = await cli(argv);
      expect(answer.status).toBe(1);
      expect(answer.err).toContain(
        'the session of viewer expired at 2020-01-01T00:00:00.000Z and the user pool refused to renew it (NotAuthorizedException): run: payouts login --user viewer',
      );
      expect(answer.err).toContain('Nothing was sent.');
      expect(answer.err).not.toMatch(/\bat \S+ \(/);
      expect(answer.out).toBe('');
    }
  });
});

describe('the CLI without a usable session', () => {
  it('says what to run when the user never signed in, and the stack refuses the header', async () => {
    const answer = await cli([...as('dave'), 'controls', 'show']);
    expect(answer.status).toBe(1);
    expect(answer.err).toContain('HTTP 401');
    expect(answer.err).toContain(`dave is not signed in: run: payouts login --user dave --api ${server.url}`);
    expect(answer.err).not.toMatch(/\bat \S+ \(/);
  });

  it('says what to run when the session expired with no refresh token to renew it, and sends nothing', async () => {
    expect((await loginAs('viewer')).status).toBe(0);
    const path = join(home, 'session-viewer.json');
    const { refreshToken, ...session } = JSON.parse(readFileSync(path, 'utf8'));
    expect(refreshToken).toEqual(expect.any(String));
    writeFileSync(path, JSON.stringify({ ...session, expiresAt: '2020-01-01T00:00:00.000Z' }));
    const answer = await cli([...as('viewer'), 'controls', 'show']);
    expect(answer.status).toBe(1);
    expect(answer.err).toContain(
      'the session of viewer expired at 2020-01-01T00:00:00.000Z: run: payouts login --user viewer',
    );
    expect(answer.err).toContain('Nothing was sent.');
  });

  it('refuses a wrong password without echoing it, and logs out', async () => {
    const wrong = await cli(
      ['--api', server.url, 'login', '--user', 'bob', '--password-stdin'],
      'not-bobs-password\n',
    );
    expect(wrong.status).toBe(1);
    expect(wrong.err).toContain('sign-in refused for bob');
    expect(wrong.err + wrong.out).not.toContain('not-bobs-password');

    expect((await loginAs('bob')).status).toBe(0);
    expect((await cli([...as('bob'), 'token'])).out).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect((await cli(['logout', '--user', 'bob'])).out).toBe('signed out bob\n');
    const after = await cli([...as('bob'), 'token']);
    expect(after.status).toBe(1);
    expect(after.err).toContain('run: payouts login --user bob');
  });

  it('asks for the password on the terminal without --password-stdin, and says to pipe it where there is none', async () => {
    const questions: string[] = [];
    const asked = await cli(['--api', server.url, 'login', '--user', 'viewer'], '', async (question) => {
      questions.push(question);
      return password('viewer');
    });
    expect(asked.status, asked.err).toBe(0);
    expect(questions).toEqual(['Password for viewer: ']);
    const noTerminal = await cli(['--api', server.url, 'login', '--user', 'viewer']);
    expect(noTerminal.status).toBe(1);
    expect(noTerminal.err).toContain('pipe it in with --password-stdin');
  });

  it('points to the AWS sign-in for an API in AWS', async () => {
    const answer = await cli([
      '--api',
      'https://abc.execute-api.eu-west-1.amazonaws.com',
      'login',
      '--user',
      'bob',
    ]);
    expect(answer.status).toBe(2);
    expect(answer.err).toContain('aws sso login');
  });
});
