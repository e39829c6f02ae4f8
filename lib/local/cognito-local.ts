import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OperatorRole } from '../operators/index.js';
import * as z from '../shared/zod.js';
import { cognitoCall } from './cognito-api.js';
import { freePort } from './free-port.js';
import { stopProcess } from './stop-process.js';

/**
 * The people `npm start` seeds into its local user pool, with passwords for this machine only: they are printed
 * in the start banner and written in the docs, so they protect nothing but the habit of signing in. Each is in
 * the one group its name says (the groups are the stack's: infra/constructs/operators.ts).
 */
export const LOCAL_OPERATORS = [
  { username: 'alice', group: 'requester', password: 'alice-local-only-1' },
  { username: 'bob', group: 'approver', password: 'bob-local-only-1' },
  { username: 'carol', group: 'admin', password: 'carol-local-only-1' },
  { username: 'viewer', group: 'viewer', password: 'viewer-local-only-1' },
] as const satisfies readonly { username: string; group: OperatorRole; password: string }[];

/** The groups of the local pool, as the stack creates them. */
const GROUPS: readonly OperatorRole[] = ['viewer', 'requester', 'approver', 'admin'];

/** A running cognito-local with the operators' pool seeded. */
export interface LocalUserPool {
  /** Where cognito-local answers the Cognito API (`InitiateAuth` …), e.g. `http://127.0.0.1:9229`. */
  readonly endpoint: string;
  readonly userPoolId: string;
  /** The app client the CLI signs in with (USER_PASSWORD_AUTH, no secret). */
  readonly clientId: string;
  /** The ID tokens' `iss`: `<endpoint>/<userPoolId>`. */
  readonly issuer: string;
  /** Its signing keys. */
  readonly jwksUri: string;
  stop(): Promise<void>;
}

/**
 * Starts cognito-local (the npm package, a Node process) on 127.0.0.1 with its state in a fresh temporary folder,
 * and seeds the operators' pool: one app client, the four groups and `LOCAL_OPERATORS`.
 *
 * What cognito-local 5.3.0 does not do, and how this stands in (docs/controls.md, "Identity"):
 * - it signs every pool's tokens with one key that ships inside the package, so a token is only as secret as
 *   this machine; the local API still checks issuer, audience, token use and expiry, as a gateway would;
 * - no SRP or MFA: the local client signs in with USER_PASSWORD_AUTH (the stack's pool requires SRP and TOTP).
 *
 * @example
 * const pool = await startLocalUserPool();
 * // POST pool.endpoint, X-Amz-Target: AWSCognitoIdentityProviderService.InitiateAuth …
 * await pool.stop();
 */
export async function startLocalUserPool(
  options: { port?: number; readyTimeoutMs?: number } = {},
): Promise<LocalUserPool> {
  const port = options.port ?? (await freePort());
  const state = mkdtempSync(join(tmpdir(), 'cognito-local-'));
  // Usernames sign in, not e-mail addresses (cognito-local's default pools take e-mail as the username).
  mkdirSync(join(state, '.cognito'));
  writeFileSync(
    join(state, '.cognito', 'config.json'),
    JSON.stringify({ UserPoolDefaults: { UsernameAttributes: [] } }),
  );
  const bin = createRequire(import.meta.url).resolve('cognito-local/lib/bin/start.js');
  const child = spawn(process.execPath, [bin], {
    cwd: state,
    // Its issuer is built from HOST and PORT: the address the verifier then expects in `iss`.
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DEBUG: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopProcess(child);
    rmSync(state, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(endpoint, child, options.readyTimeoutMs ?? 30_000);
    const seeded = await seedOperators(endpoint);
    const issuer = `${endpoint}/${seeded.userPoolId}`;
    return { endpoint, ...seeded, issuer, jwksUri: `${issuer}/.well-known/jwks.json`, stop };
  } catch (error) {
    await stop();
    throw new Error(`cognito-local did not start: ${(error as Error).message}\n${stderr}`, { cause: error });
  }
}

const CreatedPool = z.object({ UserPool: z.object({ Id: z.string().check(z.minLength(1)) }) });
const CreatedClient = z.object({ UserPoolClient: z.object({ ClientId: z.string().check(z.minLength(1)) }) });

async function seedOperators(endpoint: string): Promise<{ userPoolId: string; clientId: string }> {
  const call = (operation: string, body: object) => cognitoCall(endpoint, operation, body);
  const pool = CreatedPool.parse(await call('CreateUserPool', { PoolName: 'payouts-local-operators' }));
  const userPoolId = pool.UserPool.Id;
  const client = CreatedClient.parse(
    await call('CreateUserPoolClient', {
      UserPoolId: userPoolId,
      ClientName: 'payouts-cli',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      // As the stack's client: ID tokens for an hour.
      IdTokenValidity: 1,
      AccessTokenValidity: 1,
      TokenValidityUnits: { IdToken: 'hours', AccessToken: 'hours' },
    }),
  );
  for (const group of GROUPS) await call('CreateGroup', { UserPoolId: userPoolId, GroupName: group });
  for (const user of LOCAL_OPERATORS) {
    await call('AdminCreateUser', {
      UserPoolId: userPoolId,
      Username: user.username,
      MessageAction: 'SUPPRESS',
      UserAttributes: [{ Name: 'email', Value: `${user.username}@payouts.local` }],
    });
    await call('AdminSetUserPassword', {
      UserPoolId: userPoolId,
      Username: user.username,
      Password: user.password,
      Permanent: true,
    });
    await call('AdminAddUserToGroup', {
      UserPoolId: userPoolId,
      Username: user.username,
      GroupName: user.group,
    });
  }
  return { userPoolId, clientId: client.UserPoolClient.ClientId };
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`node exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`${endpoint}/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}
