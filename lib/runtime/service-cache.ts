import type { Runtime } from './runtime.js';

/** Each runtime's services by name: built on first use, then kept for the runtime's life (see services.ts). */
const built = new WeakMap<Runtime, Map<string, unknown>>();

export function once<T>(runtime: Runtime, name: string, build: () => T): T {
  let services = built.get(runtime);
  if (!services) {
    services = new Map();
    built.set(runtime, services);
  }
  if (!services.has(name)) services.set(name, build());
  return services.get(name) as T;
}
