import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { MAX_SEND_LATENESS_MS } from '../payouts/index.js';
import {
  type CredentialsSource,
  createSecretsManagerClient,
  PacedTransport,
  ProviderConnection,
  type RequestPacer,
  SecretsManagerCredentialsSource,
  StaticCredentialsSource,
  type Transport,
} from '../provider/index.js';
import { observeAwsCalls } from '../shared/aws-call-observer.js';
import type { Runtime } from './runtime.js';
import { ConfigurationError } from './runtime-config.js';
import { once } from './service-cache.js';

/**
 * The runtime's one connection to the provider, built on first use by a function whose path calls the provider
 * (each service builds the resources it calls on it), and closed with the runtime. AWS mode reads the token from
 * its secret and, in the functions that send money only, the PIN from its own secret (each cached in memory,
 * refreshed on a 401); local mode takes them from PROVIDER_TOKEN / PROVIDER_PIN.
 *
 * A function the stack gives no provider access has no PROVIDER_TOKEN_SECRET_ID: asking here fails, naming it.
 */
export function providerConnectionOf(runtime: Runtime): ProviderConnection {
  return once(runtime, 'providerConnection', () => connect(runtime));
}

/**
 * A connection whose every request first takes a slot of the fleet's pacer (the workers' rate limiter), so it
 * shares the provider's limit with their sends: for the reconciler, whose look-ups the workers never pace. Without
 * PROVIDER_RATE_LIMIT_PER_SECOND there is no pacer and it is the plain connection's twin.
 */
export function pacedProviderConnectionOf(
  runtime: Runtime,
  pacer: RequestPacer | undefined,
): ProviderConnection {
  return once(runtime, 'pacedProviderConnection', () =>
    connect(
      runtime,
      pacer && ((inner) => new PacedTransport(inner, pacer, { maxLatenessMs: MAX_SEND_LATENESS_MS })),
    ),
  );
}

function connect(runtime: Runtime, wrapTransport?: (inner: Transport) => Transport): ProviderConnection {
  const { env } = runtime;
  const connection = new ProviderConnection({
    baseUrl: env.PROVIDER_BASE_URL,
    credentials: runtime.overrides.credentials ?? credentialsFor(runtime),
    logger: runtime.logger,
    ...(env.PROVIDER_TIMEOUT_MS && { timeouts: { requestMs: env.PROVIDER_TIMEOUT_MS } }),
    ...(wrapTransport && { wrapTransport }),
  });
  runtime.onClose(() => connection.close());
  return connection;
}

function credentialsFor({ env, overrides }: Runtime): CredentialsSource {
  if (env.PROVIDER_TOKEN_SECRET_ID) {
    const client = overrides.secretsManager ?? createSecretsManagerClient();
    if (overrides.awsCalls && client instanceof SecretsManagerClient)
      observeAwsCalls(client, overrides.awsCalls.functionName, overrides.awsCalls.observer);
    // The PIN's secret is named only to the functions that send money; the others hold no PIN and never ask.
    return new SecretsManagerCredentialsSource({
      tokenSecretId: env.PROVIDER_TOKEN_SECRET_ID,
      ...(env.PROVIDER_PIN_SECRET_ID && { pinSecretId: env.PROVIDER_PIN_SECRET_ID }),
      client,
    });
  }
  if (!env.PROVIDER_TOKEN || !env.PROVIDER_PIN) {
    throw new ConfigurationError(
      'invalid configuration: PROVIDER_TOKEN_SECRET_ID: this function calls the provider; set it (AWS) or both PROVIDER_TOKEN and PROVIDER_PIN (local mode)',
    );
  }
  return new StaticCredentialsSource({ token: env.PROVIDER_TOKEN, pin: env.PROVIDER_PIN });
}
