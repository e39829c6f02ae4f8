import { type AwsCredentials, credentialsForIdToken, signedHeaders } from './aws-signing.js';
import type { HostedSignInConfig, PasswordSignInConfig } from './config.js';
import { signingUrlOf } from './signing-url.js';

/** Who is signed in, read from their ID token (the API checks the token or credentials itself). */
export interface Person {
  readonly sub: string;
  readonly username: string;
  readonly groups: readonly string[];
}

/**
 * A signed-in person. The token (and, deployed, the credentials) live in this object only: never in
 * localStorage or sessionStorage, so a reload signs out and no other script of the origin finds them stored.
 */
export interface Session {
  readonly person: Person;
  readonly expiresAt: number;
  /** The headers that authorise one request. */
  authorize(request: {
    method: string;
    url: URL;
    headers: Record<string, string>;
    body?: string;
  }): Promise<Record<string, string>>;
}

export class SignInError extends Error {}

function claimsOf(idToken: string): Record<string, unknown> {
  const payload = idToken.split('.')[1];
  if (!payload) throw new SignInError('the pool answered a malformed ID token');
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)))) as Record<
    string,
    unknown
  >;
}

function personOf(idToken: string): { person: Person; expiresAt: number } {
  const claims = claimsOf(idToken);
  const groups = Array.isArray(claims['cognito:groups']) ? claims['cognito:groups'].map(String) : [];
  return {
    person: {
      sub: String(claims.sub ?? ''),
      username: String(claims['cognito:username'] ?? claims.email ?? claims.sub ?? ''),
      groups,
    },
    expiresAt: Number(claims.exp ?? 0) * 1000,
  };
}

/** Signs in against the local pool with a username and password (USER_PASSWORD_AUTH). */
export async function passwordSignIn(
  config: PasswordSignInConfig,
  username: string,
  password: string,
): Promise<Session> {
  const response = await fetch(config.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth',
    },
    body: JSON.stringify({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: config.clientId,
      AuthParameters: { USERNAME: username, PASSWORD: password },
    }),
  });
  const answer = (await response.json().catch(() => ({}))) as {
    AuthenticationResult?: { IdToken?: string };
    ChallengeName?: string;
    message?: string;
  };
  if (answer.ChallengeName) {
    throw new SignInError(
      `the pool asks for ${answer.ChallengeName}: finish it with the CLI first (docs/deploy.md)`,
    );
  }
  const idToken = answer.AuthenticationResult?.IdToken;
  if (!response.ok || !idToken) throw new SignInError('the username or password is not right');
  const { person, expiresAt } = personOf(idToken);
  return {
    person,
    expiresAt,
    authorize: async () => ({ authorization: `Bearer ${idToken}` }),
  };
}

const VERIFIER_KEY = 'payouts-console-pkce';

const base64Url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/**
 * Sends the browser to the pool's sign-in page (authorization code with PKCE). Only the one-use verifier and
 * state wait in sessionStorage for the way back; they are not credentials (the code needs the verifier and this
 * client, and is taken once).
 */
export async function beginHostedSignIn(config: HostedSignInConfig): Promise<never> {
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const state = base64Url(crypto.getRandomValues(new Uint8Array(16)));
  const challenge = base64Url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(VERIFIER_KEY, JSON.stringify({ verifier, state }));
  const url = new URL('/oauth2/authorize', config.domain);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: 'openid email profile',
    code_challenge_method: 'S256',
    code_challenge: challenge,
    state,
  }).toString();
  location.assign(url.toString());
  return new Promise<never>(() => undefined);
}

/** Back from the sign-in page (`?code=…&state=…`): the session, or undefined when this is not such a return. */
export async function completeHostedSignIn(config: HostedSignInConfig): Promise<Session | undefined> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  if (!code) return undefined;
  const pending = JSON.parse(sessionStorage.getItem(VERIFIER_KEY) ?? '{}') as {
    verifier?: string;
    state?: string;
  };
  sessionStorage.removeItem(VERIFIER_KEY);
  history.replaceState(null, '', location.pathname + location.hash);
  if (!pending.verifier || pending.state !== params.get('state')) {
    throw new SignInError('the sign-in did not start here: sign in again');
  }
  const response = await fetch(new URL('/oauth2/token', config.domain), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: config.clientId,
      code,
      redirect_uri: config.redirectUri,
      code_verifier: pending.verifier,
    }).toString(),
  });
  const tokens = (await response.json().catch(() => ({}))) as { id_token?: string };
  if (!response.ok || !tokens.id_token)
    throw new SignInError('the pool refused the sign-in code: sign in again');
  const { person, expiresAt } = personOf(tokens.id_token);
  let credentials: AwsCredentials = await credentialsForIdToken(config, tokens.id_token);
  const idToken = tokens.id_token;
  return {
    person,
    expiresAt: Math.min(expiresAt, credentials.expiresAt),
    authorize: async (request) => {
      if (credentials.expiresAt - Date.now() < 60_000)
        credentials = await credentialsForIdToken(config, idToken);
      return signedHeaders(config.region, credentials, {
        ...request,
        url: signingUrlOf(request.url, config.api),
      });
    },
  };
}

/** Where the pool's sign-in page signs the person out too. */
export function hostedSignOutUrl(config: HostedSignInConfig): string {
  const url = new URL('/logout', config.domain);
  url.search = new URLSearchParams({ client_id: config.clientId, logout_uri: config.redirectUri }).toString();
  return url.toString();
}
