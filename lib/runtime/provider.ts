import { ProviderClient } from '../provider/index.js';
import { providerConnectionOf } from './provider-connection.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/**
 * Every provider resource on the runtime's connection, built on first use: for the ops API, which serves them
 * all. A job or event handler builds only the resources its path calls on `providerConnectionOf(runtime)`.
 */
export function providerOf(runtime: Runtime): ProviderClient {
  return once(runtime, 'provider', () => new ProviderClient(providerConnectionOf(runtime)));
}
