import { CognitoCallError, cognitoCall } from '../local/cognito-api.js';
import { LOCAL_SIGN_IN_PATH } from '../local/gateway-authorizer.js';
import * as z from '../shared/zod.js';
import { type Session, SessionStore, sessionsDir } from './sessions.js';

const SignInSettings = z.object({
  endpoint: z.url(),
  userPoolId: z.string().check(z.minLength(1)),
  clientId: z.string().check(z.minLength(1)),
});

const AuthResult = z.object({
  AuthenticationResult: z.object({ IdToken: z.string().check(z.minLength(1)) }),
});

/** The two claims the CLI reads from its own ID token (the API verifies it; the CLI only shows and times it). */
const IdTokenClaims = z.object({
  exp: z.number(),
  'cognito:groups': z.optional(z.array(z.string())),
});

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

/**
 * `payouts login --user NAME` against a local stack: reads the pool and client from the local server
 * (`LOCAL_SIGN_IN_PATH`), signs in with USER_PASSWORD_AUTH and stores the session for later commands.
 *
 * @example await login('http://127.0.0.1:3000', 'bob', io) // 'signed in as bob (approver) until …'
 */
export async function login(api: string, username: string, io: LoginIo): Promise<Session> {
  const base = api.replace(/\/+$/, '');
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
  const password = await io.password();
  if (password === '') throw new LoginError('no password given');
  let answer: unknown;
  try {
    answer = await cognitoCall(settings.data.endpoint, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: settings.data.clientId,
      AuthParameters: { USERNAME: username, PASSWORD: password },
    });
  } catch (error) {
    if (error instanceof CognitoCallError) {
      throw new LoginError(`sign-in refused for ${username}: wrong username or password (${error.type})`);
    }
    throw new LoginError(`the user pool at ${settings.data.endpoint} did not answer`);
  }
  const result = AuthResult.safeParse(answer);
  if (!result.success) throw new LoginError(`sign-in of ${username} needs a step the CLI cannot take`);
  const idToken = result.data.AuthenticationResult.IdToken;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString());
  } catch {
    payload = undefined;
  }
  const read = IdTokenClaims.safeParse(payload);
  if (!read.success)
    throw new LoginError(`the user pool answered ${username}'s sign-in with no readable ID token`);
  const claims = read.data;
  const session: Session = {
    version: 1,
    username,
    api: base,
    userPoolId: settings.data.userPoolId,
    idToken,
    expiresAt: new Date(claims.exp * 1000).toISOString(),
  };
  const path = new SessionStore(sessionsDir(io.env)).save(session);
  const groups = claims['cognito:groups']?.join(', ') || 'no group';
  io.out(`signed in as ${username} (${groups}) until ${session.expiresAt}; session in ${path}\n`);
  return session;
}
