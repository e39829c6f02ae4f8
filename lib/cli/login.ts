import { CognitoCallError, cognitoCall, LOCAL_SIGN_IN_PATH } from '../local/index.js';
import * as z from '../shared/zod.js';
import { expiredSession, type Session, SessionStore, sessionsDir } from './sessions.js';

const SignInSettings = z.object({
  endpoint: z.url(),
  userPoolId: z.string().check(z.minLength(1)),
  clientId: z.string().check(z.minLength(1)),
});
type SignInSettings = z.infer<typeof SignInSettings>;

const AuthResult = z.object({
  AuthenticationResult: z.object({
    IdToken: z.string().check(z.minLength(1)),
    /** Returned by a password sign-in; a renewal (REFRESH_TOKEN_AUTH) answers without one and the old one stays. */
    RefreshToken: z.optional(z.string().check(z.minLength(1))),
  }),
});

/** The two claims the CLI reads from its own ID token (the API verifies it; the CLI only shows and times it). */
const IdTokenClaims = z.object({
  exp: z.number(),
  'cognito:groups': z.optional(z.array(z.string())),
});
type IdTokenClaims = z.infer<typeof IdTokenClaims>;

/** What `payouts login` needs from the terminal. */
export interface LoginIo {
  readonly out: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The password: from standard input (`--password-stdin`) or asked on the terminal without echo. */
  readonly password: () => Promise<string>;
}

/** A sign-in that did not happen; its message says why and what to do, and never holds the password. */
export class LoginError extends Error {
  override readonly name = 'LoginError';
  readonly code = 'LOGIN_FAILED';
}

/** The local pool's sign-in settings, as the local server serves them (`LOCAL_SIGN_IN_PATH`). */
async function signInSettingsOf(base: string): Promise<SignInSettings> {
  let settingsAnswer: Response;
  try {
    settingsAnswer = await fetch(`${base}${LOCAL_SIGN_IN_PATH}`);
  } catch {
    throw new LoginError(`nothing answers at ${base}: is npm start running?`);
  }
  const settings = SignInSettings.safeParse(
    settingsAnswer.ok ? await settingsAnswer.json().catch(() => undefined) : undefined,
  );
  if (!settings.success) {
    throw new LoginError(`${base} has no local user pool to sign in to (is it npm start?)`);
  }
  return settings.data;
}

/** The claims of an ID token the pool just issued, or undefined when it is not a readable JWT. */
function claimsOf(idToken: string): IdTokenClaims | undefined {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString());
  } catch {
    payload = undefined;
  }
  const read = IdTokenClaims.safeParse(payload);
  return read.success ? read.data : undefined;
}

/**
 * `payouts login --user NAME` against a local stack: reads the pool and client from the local server
 * (`LOCAL_SIGN_IN_PATH`), signs in with USER_PASSWORD_AUTH and stores the session, with its refresh token, for
 * later commands (0600: both tokens are credentials).
 *
 * @example await login('http://127.0.0.1:3000', 'bob', io) // 'signed in as bob (approver) until …'
 */
export async function login(api: string, username: string, io: LoginIo): Promise<Session> {
  const base = api.replace(/\/+$/, '');
  const settings = await signInSettingsOf(base);
  const password = await io.password();
  if (password === '') throw new LoginError('no password given');
  let answer: unknown;
  try {
    answer = await cognitoCall(settings.endpoint, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: settings.clientId,
      AuthParameters: { USERNAME: username, PASSWORD: password },
    });
  } catch (error) {
    if (error instanceof CognitoCallError) {
      throw new LoginError(`sign-in refused for ${username}: wrong username or password (${error.type})`);
    }
    throw new LoginError(`the user pool at ${settings.endpoint} did not answer`);
  }
  const result = AuthResult.safeParse(answer);
  if (!result.success) throw new LoginError(`sign-in of ${username} needs a step the CLI cannot take`);
  const { IdToken: idToken, RefreshToken: refreshToken } = result.data.AuthenticationResult;
  const claims = claimsOf(idToken);
  if (!claims) throw new LoginError(`the user pool answered ${username}'s sign-in with no readable ID token`);
  const session: Session = {
    version: 1,
    username,
    api: base,
    userPoolId: settings.userPoolId,
    idToken,
    expiresAt: new Date(claims.exp * 1000).toISOString(),
    ...(refreshToken !== undefined && { refreshToken }),
  };
  const path = new SessionStore(sessionsDir(io.env)).save(session);
  const groups = claims['cognito:groups']?.join(', ') || 'no group';
  io.out(`signed in as ${username} (${groups}) until ${session.expiresAt}; session in ${path}\n`);
  return session;
}

/**
 * The user's session for `api` with an ID token that has not expired: the stored one, or, past its expiry, one
 * renewed with the session's refresh token (REFRESH_TOKEN_AUTH against the local pool) and stored in its place.
 * When it cannot be renewed (no refresh token, the pool refuses it, the pool does not answer) a SessionError
 * `expired` says why and to run `payouts login --user NAME`; nothing is sent.
 *
 * @example (await freshSession(store, 'bob', 'http://127.0.0.1:3000', new Date())).idToken
 */
export async function freshSession(
  store: SessionStore,
  username: string,
  api: string,
  now: Date,
): Promise<Session> {
  const session = store.read(username, api);
  if (Date.parse(session.expiresAt) > now.getTime()) return session;
  const { refreshToken } = session;
  if (refreshToken === undefined) throw expiredSession(session);
  const renewed = await renew(session, refreshToken);
  store.save(renewed);
  return renewed;
}

async function renew(session: Session, refreshToken: string): Promise<Session> {
  let settings: SignInSettings;
  try {
    settings = await signInSettingsOf(session.api);
  } catch (error) {
    throw expiredSession(session, `could not be renewed (${(error as Error).message})`, { cause: error });
  }
  if (settings.userPoolId !== session.userPoolId) {
    throw expiredSession(session, `its user pool is gone (${session.api} now serves another one)`);
  }
  let answer: unknown;
  try {
    answer = await cognitoCall(settings.endpoint, 'InitiateAuth', {
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: settings.clientId,
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    });
  } catch (error) {
    const why =
      error instanceof CognitoCallError
        ? `the user pool refused to renew it (${error.type})`
        : `the user pool at ${settings.endpoint} did not answer`;
    throw expiredSession(session, why, { cause: error });
  }
  const result = AuthResult.safeParse(answer);
  const tokens = result.success ? result.data.AuthenticationResult : undefined;
  const claims = tokens === undefined ? undefined : claimsOf(tokens.IdToken);
  if (tokens === undefined || !claims) {
    throw expiredSession(session, 'the user pool renewed it with no readable ID token');
  }
  return {
    ...session,
    idToken: tokens.IdToken,
    expiresAt: new Date(claims.exp * 1000).toISOString(),
    refreshToken: tokens.RefreshToken ?? refreshToken,
  };
}
