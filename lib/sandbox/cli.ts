/**
 * `npm run sandbox -- --port 4010 [--latency-ms 20]`: serves the sandbox on 127.0.0.1.
 * Token from SANDBOX_TOKEN (default `sandbox-token`), PIN from SANDBOX_PIN (default `0000`).
 */
import { parseArgs } from 'node:util';
import { DEFAULT_PIN, DEFAULT_TOKEN, startSandbox } from './index.js';

function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a non-negative integer, got ${value}`);
  return Number(value);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, 'latency-ms': { type: 'string' } },
    strict: true,
  });
  const sandbox = await startSandbox({
    port: intOption(values.port, 'port', 0),
    latencyMs: intOption(values['latency-ms'], 'latency-ms', 0),
    token: process.env.SANDBOX_TOKEN || DEFAULT_TOKEN,
    pin: process.env.SANDBOX_PIN || DEFAULT_PIN,
  });
  console.log(`Provider sandbox listening on ${sandbox.url}`);
  const stop = (signal: string) => {
    console.log(`Received ${signal}, stopping the sandbox`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
