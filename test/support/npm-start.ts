import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Starts `npm start` exactly as a user would, in its own process group (as a terminal does), without any
 * provider settings of this process (so the sandbox is used). Stop it with `process.kill(-child.pid, …)`.
 */
export function startNpm(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const { PROVIDER_BASE_URL: _url, PROVIDER_TOKEN: _token, PROVIDER_PIN: _pin, ...inherited } = process.env;
  const child = spawn('npm', ['start', '--silent'], {
    cwd: resolve(import.meta.dirname, '..', '..'),
    env: { ...inherited, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}
