import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FaultSpec } from '../lib/sandbox/index.js';
import { startSandboxProcess } from './sandbox-process.js';
import { projectRoot, withFreshDynamoDb } from './support.js';

/**
 * Runs a benchmark's coordinator (`bench/<script>`, a Node process of its own that starts the fleet) against its
 * own DynamoDB Local and a sandbox process answering after `latencyMs`, and answers the JSON it wrote to
 * BENCH_RESULT_FILE. `env` is the coordinator's own settings (BENCH_*); `faults` are queued on the sandbox first.
 */
export async function runCoordinator<T>(
  script: string,
  options: { latencyMs: number; env: Record<string, string>; faults?: readonly FaultSpec[] },
): Promise<T> {
  return withFreshDynamoDb(async (endpoint) => {
    const provider = await startSandboxProcess({ latencyMs: options.latencyMs, projectRoot });
    try {
      for (const fault of options.faults ?? []) await provider.injectFault(fault);
      const resultFile = join(mkdtempSync(join(tmpdir(), 'bench-coordinator-')), 'result.json');
      const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'bench', script)], {
        cwd: projectRoot,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          BENCH_DDB_ENDPOINT: endpoint,
          BENCH_PROVIDER_URL: provider.url,
          BENCH_PROVIDER_TOKEN: provider.token,
          BENCH_PROVIDER_PIN: provider.pin,
          BENCH_RESULT_FILE: resultFile,
          ...options.env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const [code] = await once(child, 'exit');
      if (code !== 0) throw new Error(`${script} exited with ${code}`);
      return JSON.parse(readFileSync(resultFile, 'utf8')) as T;
    } finally {
      await provider.close();
    }
  });
}
