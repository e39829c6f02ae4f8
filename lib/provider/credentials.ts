/** What the client needs to call the provider: the bearer token and the wallet PIN. */
export type Credentials = { token: string; pin: string };

/**
 * Where the client gets its credentials. Called before each call; with `forceRefresh` after a 401.
 *
 * @example const client = new ProviderClient({ baseUrl, credentials: new EnvCredentialsSource() });
 */
export interface CredentialsSource {
  get(options?: { forceRefresh?: boolean }): Promise<Credentials>;
}

/** Raised when a credentials source cannot produce credentials. Never contains a secret. */
export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
  readonly code = 'PROVIDER_CREDENTIALS';
}

/**
 * Fixed credentials, e.g. for tests and the sandbox.
 *
 * @example new StaticCredentialsSource({ token: 'sandbox-token', pin: '0000' })
 */
export class StaticCredentialsSource implements CredentialsSource {
  readonly #credentials: Credentials;

  constructor(credentials: Credentials) {
    this.#credentials = { ...credentials };
  }

  async get(_options?: { forceRefresh?: boolean }): Promise<Credentials> {
    return { ...this.#credentials };
  }

  /** Keeps the secrets out of logs and `util.inspect`. */
  toJSON(): string {
    return 'StaticCredentialsSource';
  }
}

/**
 * Reads `PROVIDER_TOKEN` and `PROVIDER_PIN` from the environment on every call (so a refresh sees changes).
 *
 * @example new EnvCredentialsSource() // or new EnvCredentialsSource(customEnv)
 */
export class EnvCredentialsSource implements CredentialsSource {
  readonly #env: NodeJS.ProcessEnv;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#env = env;
  }

  async get(_options?: { forceRefresh?: boolean }): Promise<Credentials> {
    const token = this.#env.PROVIDER_TOKEN;
    const pin = this.#env.PROVIDER_PIN;
    if (!token) throw new CredentialsError('PROVIDER_TOKEN is not set');
    if (!pin) throw new CredentialsError('PROVIDER_PIN is not set');
    return { token, pin };
  }
}
