import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

/** Resolves with the URL the sandbox prints when ready; keeps draining stdout afterwards. */
function readyUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += String(chunk);
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) resolveUrl(match[1]);
    });
    child.once('exit', () => reject(new Error(`the sandbox exited before it was ready: ${out}`)));
  });
}

describe('npm run sandbox (lib/sandbox/cli.ts)', () => {
  it('serves on 127.0.0.1 with the token and PIN from the environment and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'lib/sandbox/cli.ts', '--port', '0'], {
      cwd: root,
      env: { ...process.env, SANDBOX_TOKEN: 'cli-token', SANDBOX_PIN: '4321' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await readyUrl(child);
      const fixtures = (await (await fetch(`${url}/__sandbox/fixtures`)).json()) as {
        stores: { walletId: string }[];
      };
      const wrongToken = await fetch(`${url}/payment-link`, {
        headers: { authorization: 'Bearer sandbox-token' },
      });
      expect(wrongToken.status).toBe(401);
      const transfer = await fetch(`${url}/wallet/transfer`, {
        method: 'POST',
        headers: { authorization: 'Bearer cli-token', 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: 1,
          pin: '4321',
          narration: 'cli',
          fromWalletId: fixtures.stores[0]!.walletId,
          toWalletId: fixtures.stores[1]!.walletId,
        }),
      });
      expect(transfer.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
