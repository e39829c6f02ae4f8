import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import { type Credentials, CredentialsError, type CredentialsSource } from './credentials.js';

const secretSchema = z.object({
  token: z.string().check(z.minLength(1)),
  pin: z.string().check(z.minLength(1)),
});

/** The part of the Secrets Manager client this source uses; injectable for tests. */
export type SecretsManagerLike = Pick<SecretsManagerClient, 'send'>;

export type SecretsManagerCredentialsOptions = {
  /** ARN or name of a secret whose string is JSON `{ "token": "...", "pin": "..." }`. */
  secretId: string;
  client?: SecretsManagerLike;
  /** How long a fetched secret is reused; default 5 minutes. */
  ttlMs?: number;
  now?: () => number;
};

/**
 * Credentials from AWS Secrets Manager, cached in memory for `ttlMs`. `forceRefresh` (after a 401) bypasses
 * the cache. Concurrent callers share one fetch.
 *
 * @example new SecretsManagerCredentialsSource({ secretId: process.env.PROVIDER_SECRET_ARN ?? '' })
 */
export class SecretsManagerCredentialsSource implements CredentialsSource {
  readonly #secretId: string;
  readonly #client: SecretsManagerLike;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #cached: { credentials: Credentials; expiresAt: number } | undefined;
  #inFlight: Promise<Credentials> | undefined;

  constructor(options: SecretsManagerCredentialsOptions) {
    this.#secretId = options.secretId;
    this.#client = options.client ?? new SecretsManagerClient({});
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  async get(options: { forceRefresh?: boolean } = {}): Promise<Credentials> {
    const cached = this.#cached;
    if (!options.forceRefresh && cached && cached.expiresAt > this.#now()) return { ...cached.credentials };
    if (!this.#inFlight) {
      this.#inFlight = this.#fetch().finally(() => {
        this.#inFlight = undefined;
      });
    }
    return { ...(await this.#inFlight) };
  }

  async #fetch(): Promise<Credentials> {
    let secretString: string | undefined;
    try {
      const output = await this.#client.send(new GetSecretValueCommand({ SecretId: this.#secretId }));
      secretString = output.SecretString;
    } catch (error) {
      const name = error instanceof Error ? error.name : 'unknown error';
      throw new CredentialsError(`cannot read provider credentials secret (${name})`);
    }
    if (secretString === undefined)
      throw new CredentialsError('provider credentials secret has no SecretString');
    let json: unknown;
    try {
      json = JSON.parse(secretString);
    } catch {
      // Never echo the secret text or the parser message (it quotes the text).
      throw new CredentialsError('provider credentials secret is not JSON');
    }
    const parsed = secretSchema.safeParse(json);
    if (!parsed.success)
      throw new CredentialsError('provider credentials secret needs string "token" and "pin"');
    const credentials = { token: parsed.data.token, pin: parsed.data.pin };
    this.#cached = { credentials, expiresAt: this.#now() + this.#ttlMs };
    return credentials;
  }
}
