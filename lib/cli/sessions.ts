import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as z from '../shared/zod.js';

/** A signed-in operator of a local stack: what `payouts login` stores and later commands send. */
export const SessionSchema = z.object({
  version: z.literal(1),
  username: z.string().check(z.minLength(1)),
  /** The API it was signed in for (a session of another stack is not sent there). */
  api: z.string(),
  userPoolId: z.string(),
  /** The ID token, sent as `Authorization: Bearer …`. */
  idToken: z.string().check(z.minLength(1)),
  /** When the ID token expires (ISO 8601, from its `exp`). */
  expiresAt: z.iso.datetime(),
  /**
   * The refresh token of the sign-in: an expired ID token is renewed with it (REFRESH_TOKEN_AUTH) instead of
   * asking for the password again. Absent in a session stored before the CLI kept it.
   */
  refreshToken: z.optional(z.string().check(z.minLength(1))),
});
export type Session = z.infer<typeof SessionSchema>;

const USERNAME = /^[\w+=,.@-]{1,128}$/;

/** Where sessions are kept: `$PAYOUTS_HOME`, else `~/.payouts`. */
export function sessionsDir(env: Readonly<Record<string, string | undefined>>): string {
  return env.PAYOUTS_HOME || join(homedir(), '.payouts');
}

/** Why a stored session cannot be used: none, another stack's, not a session file, or past its expiry. */
export type SessionProblem = 'missing' | 'other-api' | 'unreadable' | 'expired';

/** What went wrong reading a session, in words that say what to run. */
export class SessionError extends Error {
  override readonly name = 'SessionError';
  readonly code = 'SESSION_UNUSABLE';
  constructor(
    message: string,
    readonly problem: SessionProblem,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The sign-in hint every session problem ends with. */
export const loginHint = (username: string) => `run: payouts login --user ${username}`;

/**
 * The sessions of one machine, one file per user (`session-<user>.json`, mode 0600 in a 0700 folder), since an
 * ID token is a credential for as long as it lives.
 *
 * @example
 * const store = new SessionStore(sessionsDir(process.env));
 * store.save(session); store.load('bob', 'http://127.0.0.1:3000', new Date());
 */
export class SessionStore {
  constructor(readonly dir: string) {}

  pathOf(username: string): string {
    if (!USERNAME.test(username)) throw new SessionError(`not a username: ${username}`, 'unreadable');
    return join(this.dir, `session-${username}.json`);
  }

  save(session: Session): string {
    const path = this.pathOf(session.username);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // The mode of `writeFileSync` applies only to a new file: an older one is narrowed too.
    writeFileSync(path, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
    chmodSync(path, 0o600);
    return path;
  }

  /** The user's session for `api`, or a SessionError saying why none can be used and what to run. */
  load(username: string, api: string, now: Date): Session {
    const session = this.read(username, api);
    if (Date.parse(session.expiresAt) <= now.getTime()) throw expiredSession(session);
    return session;
  }

  /** The user's session for `api`, expired or not (to renew it), or a SessionError saying why there is none. */
  read(username: string, api: string): Session {
    const path = this.pathOf(username);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      throw new SessionError(`${username} is not signed in: ${loginHint(username)}`, 'missing');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const session = SessionSchema.safeParse(parsed);
    if (!session.success)
      throw new SessionError(`${path} is not a session: ${loginHint(username)}`, 'unreadable');
    if (normalisedApi(session.data.api) !== normalisedApi(api)) {
      throw new SessionError(
        `${username} is signed in to ${session.data.api}, not ${api}: ${loginHint(username)} --api ${api}`,
        'other-api',
      );
    }
    return session.data;
  }

  /** Forgets the user's session; true when there was one. */
  remove(username: string): boolean {
    const path = this.pathOf(username);
    try {
      readFileSync(path);
    } catch {
      return false;
    }
    rmSync(path, { force: true });
    return true;
  }
}

/** The error of a session past its ID token's expiry; `why` says why it was not renewed, when it was tried. */
export function expiredSession(session: Session, why?: string, options?: ErrorOptions): SessionError {
  return new SessionError(
    `the session of ${session.username} expired at ${session.expiresAt}${why ? ` and ${why}` : ''}: ${loginHint(session.username)}`,
    'expired',
    options,
  );
}

function normalisedApi(api: string): string {
  return api.replace(/\/+$/, '').replace('//localhost:', '//127.0.0.1:');
}
