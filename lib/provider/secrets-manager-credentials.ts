import {
  GetSecretValueCommand,
  SecretsManagerClient,
  type SecretsManagerClientConfig,
} from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import { collectResponseBody } from '../shared/response-body.js';
import { SETTLED_SDK_CONFIG } from '../shared/sdk-settled-config.js';
import {
  CredentialsError,
  type CredentialsReadOptions,
  type CredentialsSource,
  noPinError,
} from './credentials.js';

/**
 * The Secrets Manager client's settings: its default of 3 attempts, and nothing left for the SDK to look up in
 * files on the first read (SETTLED_SDK_CONFIG).
 */
export const SECRETS_MANAGER_CLIENT_CONFIG = { ...SETTLED_SDK_CONFIG, maxAttempts: 3 } as const;

/**
 * The project's Secrets Manager client: SECRETS_MANAGER_CLIENT_CONFIG, and its answers read as the Node streams
 * they are (collectResponseBody: no web streams loaded on a cold start's first read). `config` overrides, as a
 * test sets an endpoint.
 */
export function createSecretsManagerClient(config: SecretsManagerClientConfig = {}): SecretsManagerClient {
  return new SecretsManagerClient({
    ...SECRETS_MANAGER_CLIENT_CONFIG,
    streamCollector: collectResponseBody,
    ...config,
  });
}

/** The part of the Secrets Manager client this source uses; injectable for tests. */
export type SecretsManagerLike = Pick<SecretsManagerClient, 'send'>;

const value = z.lazy(() => z.string().check(z.minLength(1)));
/** The token's secret holds the token only: a PIN left in it would be readable by every provider caller. */
const tokenSecret = z.lazy(() => z.strictObject({ token: value }));
const pinSecret = z.lazy(() => z.strictObject({ pin: value }));

export type SecretsManagerCredentialsOptions = {
  /** ARN or name of the secret whose string is JSON `{ "token": "..." }`. */
  tokenSecretId: string;
  /**
   * ARN or name of the secret whose string is JSON `{ "pin": "..." }`; only for the functions that send money.
   * Without it the source holds no PIN and never asks Secrets Manager for one.
   */
  pinSecretId?: string;
  client?: SecretsManagerLike;
  /** How long a fetched secret is reused; default 5 minutes. */
  ttlMs?: number;
  now?: () => number;
};

/**
 * Credentials from AWS Secrets Manager: the token and the PIN from two secrets (the PIN's encrypted with its
 * own KMS key), each read on first use and cached in memory for `ttlMs`. `forceRefresh` (after a 401)
 * bypasses the cache. Concurrent callers share one fetch.
 *
 * @example new SecretsManagerCredentialsSource({ tokenSecretId: process.env.PROVIDER_TOKEN_SECRET_ID ?? '' })
 */
export class SecretsManagerCredentialsSource implements CredentialsSource {
  readonly #token: CachedSecretField;
  readonly #pin: CachedSecretField | undefined;

  constructor(options: SecretsManagerCredentialsOptions) {
    const client = options.client ?? createSecretsManagerClient();
    const cache = { client, ttlMs: options.ttlMs ?? 5 * 60_000, now: options.now ?? Date.now };
    this.#token = new CachedSecretField({
      ...cache,
      secretId: options.tokenSecretId,
      what: 'token',
      read: (json) => tokenSecret.safeParse(json).data?.token,
      shape: 'exactly { "token": "..." } (the PIN has its own secret)',
    });
    this.#pin =
      options.pinSecretId === undefined
        ? undefined
        : new CachedSecretField({
            ...cache,
            secretId: options.pinSecretId,
            what: 'PIN',
            read: (json) => pinSecret.safeParse(json).data?.pin,
            shape: 'exactly { "pin": "..." }',
          });
  }

  get holdsPin(): boolean {
    return this.#pin !== undefined;
  }

  token(options: CredentialsReadOptions = {}): Promise<string> {
    return this.#token.get(options);
  }

  async pin(options: CredentialsReadOptions = {}): Promise<string> {
    if (!this.#pin) throw noPinError();
    return this.#pin.get(options);
  }

  /** Keeps the secrets out of logs and `util.inspect`. */
  toJSON(): string {
    return 'SecretsManagerCredentialsSource';
  }
}

type CachedSecretFieldOptions = {
  client: SecretsManagerLike;
  ttlMs: number;
  now: () => number;
  secretId: string;
  what: string;
  read: (json: unknown) => string | undefined;
  shape: string;
};

/** One field of one JSON secret, cached for the TTL, one fetch at a time. */
class CachedSecretField {
  readonly #options: CachedSecretFieldOptions;
  #cached: { value: string; expiresAt: number } | undefined;
  #inFlight: Promise<string> | undefined;

  constructor(options: CachedSecretFieldOptions) {
    this.#options = options;
  }

  async get(options: CredentialsReadOptions): Promise<string> {
    const cached = this.#cached;
    if (!options.forceRefresh && cached && cached.expiresAt > this.#options.now()) return cached.value;
    this.#inFlight ??= this.#fetch().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #fetch(): Promise<string> {
    const { client, secretId, what } = this.#options;
    let secretString: string | undefined;
    try {
      const output = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      secretString = output.SecretString;
    } catch (error) {
      const name = error instanceof Error ? error.name : 'unknown error';
      throw new CredentialsError(`cannot read the provider ${what} secret (${name})`);
    }
    if (secretString === undefined)
      throw new CredentialsError(`the provider ${what} secret has no SecretString`);
    let json: unknown;
    try {
      json = JSON.parse(secretString);
    } catch {
      // Never echo the secret text or the parser message (it quotes the text).
      throw new CredentialsError(`the provider ${what} secret is not JSON`);
    }
    const value = this.#options.read(json);
    if (value === undefined)
      throw new CredentialsError(`the provider ${what} secret must be ${this.#options.shape}`);
    this.#cached = { value, expiresAt: this.#options.now() + this.#options.ttlMs };
    return value;
  }
}
