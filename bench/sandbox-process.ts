import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DEFAULT_PIN, DEFAULT_TOKEN, type FaultSpec, type Sandbox } from '../lib/sandbox/index.js';

/** The provider as a benchmark sees it: the sandbox in this process or in its own, behind the same calls. */
export interface BenchProvider {
  readonly url: string;
  readonly token: string;
  readonly pin: string;
  /** Provider requests the sandbox has received, all paths together. */
  requestCount(): Promise<number>;
  injectFault(fault: FaultSpec): Promise<void>;
  close(): Promise<void>;
}

const countOf = (stats: { requests: Record<string, number> }) =>
  Object.values(stats.requests).reduce((sum, count) => sum + count, 0);

export function inProcess(sandbox: Sandbox): BenchProvider {
  return {
    url: sandbox.url,
    token: sandbox.token,
    pin: sandbox.pin,
    requestCount: async () => countOf(sandbox.stats()),
    injectFault: async (fault) => sandbox.injectFault(fault),
    close: () => sandbox.close(),
  };
}

const STARTED = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

/**
 * The sandbox in a `node` process of its own (`lib/sandbox/cli.ts`), as a real provider is on another machine.
 * The throughput benchmark needs this: in the engine's process, the sandbox's request handling and its latency
 * timers share one event loop with the engine's DynamoDB work, and the provider's answer is delayed by it.
 */
export async function startSandboxProcess(options: {
  latencyMs: number;
  projectRoot: string;
}): Promise<BenchProvider> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(options.projectRoot, 'lib', 'sandbox', 'cli.ts'),
      '--port',
      '0',
      '--latency-ms',
      String(options.latencyMs),
    ],
    {
      cwd: options.projectRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await listeningUrl(child);
  const admin = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${url}/__sandbox/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`sandbox admin ${method} ${path} answered ${response.status}`);
    return response.json();
  };
  return {
    url,
    token: DEFAULT_TOKEN,
    pin: DEFAULT_PIN,
    requestCount: async () => countOf((await admin('GET', 'stats')) as { requests: Record<string, number> }),
    injectFault: async (fault) => void (await admin('POST', 'faults', fault)),
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = STARTED.exec(output);
      if (match?.[1]) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`the sandbox process exited with ${code}: ${output}`)));
    child.once('error', reject);
  });
}
