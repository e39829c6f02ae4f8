/** The provider's two secrets: the bearer token every call carries, and the PIN that moves wallet money. */
export type Credentials = { token: string; pin: string };

/** Options of a credentials read; `forceRefresh` bypasses any cache (after a 401). */
export type CredentialsReadOptions = { forceRefresh?: boolean };

/**
 * Where the client gets its credentials. The token is read before each call; the PIN only before a call that
 * carries it (a wallet transfer, credit or debit), so a function that never moves wallet money never asks
 * for it. In AWS the two live in separate secrets, and only the functions that send money may read the PIN's.
 *
 * @example const client = new ProviderClient({ baseUrl, credentials: new EnvCredentialsSource() });
 */
export interface CredentialsSource {
  token(options?: CredentialsReadOptions): Promise<string>;
  pin(options?: CredentialsReadOptions): Promise<string>;
  /** False when this source has no PIN at all: `pin()` then fails at once, without asking anyone. */
  readonly holdsPin: boolean;
}

/** Raised when a credentials source cannot produce credentials. Never contains a secret. */
export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
  readonly code = 'PROVIDER_CREDENTIALS';
}

/** The error of `pin()` on a source without a PIN: a function that does not send money asked for it. */
export function noPinError(): CredentialsError {
  return new CredentialsError('this function holds no provider PIN: only the functions that send money do');
}

/**
 * Fixed credentials, e.g. for tests and the sandbox. Without `pin`, the source holds no PIN.
 *
 * @example new StaticCredentialsSource({ token: 'sandbox-token', pin: '0000' })
 */
export class StaticCredentialsSource implements CredentialsSource {
  readonly #token: string;
  readonly #pin: string | undefined;

  constructor(credentials: { token: string; pin?: string }) {
    this.#token = credentials.token;
    this.#pin = credentials.pin;
  }

  get holdsPin(): boolean {
    return this.#pin !== undefined;
  }

  async token(_options?: CredentialsReadOptions): Promise<string> {
    return this.#token;
  }

  async pin(_options?: CredentialsReadOptions): Promise<string> {
    if (this.#pin === undefined) throw noPinError();
    return this.#pin;
  }

  /** Keeps the secrets out of logs and `util.inspect`. */
  toJSON(): string {
    return 'StaticCredentialsSource';
  }
}

/**
 * Reads `PROVIDER_TOKEN` and `PROVIDER_PIN` from the environment on every call (so a refresh sees changes).
 * Local mode only; in Lambda the runtime refuses these variables.
 *
 * @example new EnvCredentialsSource() // or new EnvCredentialsSource(customEnv)
 */
export class EnvCredentialsSource implements CredentialsSource {
  readonly #env: NodeJS.ProcessEnv;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#env = env;
  }

  get holdsPin(): boolean {
    return Boolean(this.#env.PROVIDER_PIN);
  }

  async token(_options?: CredentialsReadOptions): Promise<string> {
    const token = this.#env.PROVIDER_TOKEN;
    if (!token) throw new CredentialsError('PROVIDER_TOKEN is not set');
    return token;
  }

  async pin(_options?: CredentialsReadOptions): Promise<string> {
    const pin = this.#env.PROVIDER_PIN;
    if (!pin) throw new CredentialsError('PROVIDER_PIN is not set');
    return pin;
  }
}
