import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { localAwsConfig } from '../shared/local-aws-config.js';
import { freePort } from './free-port.js';
import { stopProcess } from './stop-process.js';

export { localAwsConfig };

/** A running DynamoDB Local process (AWS's own engine, in memory or on disk). */
export interface DynamoDbLocal {
  readonly endpoint: string;
  /** The java process, for a test that kills it as a crash would (absent for one this process did not start). */
  readonly pid?: number;
  stop(): Promise<void>;
}

const projectRoot = resolve(import.meta.dirname, '..', '..');
export const dynamoDbLocalDir = join(projectRoot, '.cache', 'dynamodb-local');

/**
 * Starts DynamoDB Local on a free loopback port and resolves once it answers ListTables.
 *
 * @example
 * const ddb = await startDynamoDbLocal();
 * // ... new DynamoDBClient({ endpoint: ddb.endpoint, ...localAwsConfig })
 * await ddb.stop();
 */
export async function startDynamoDbLocal(
  options: {
    port?: number;
    readyTimeoutMs?: number;
    /** Keep the tables in this directory (`-dbPath -sharedDb`), so they outlive the process; in memory when unset. */
    dbPath?: string;
  } = {},
): Promise<DynamoDbLocal> {
  const jar = join(dynamoDbLocalDir, 'DynamoDBLocal.jar');
  if (!existsSync(jar)) {
    throw new Error(`DynamoDB Local is not installed at ${jar}: run "npm run dynamodb:install"`);
  }
  const port = options.port ?? (await freePort());
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(dynamoDbLocalDir, 'DynamoDBLocal_lib')}`,
      '-jar',
      jar,
      ...(options.dbPath ? ['-dbPath', options.dbPath, '-sharedDb'] : ['-inMemory']),
      '-port',
      String(port),
      '-disableTelemetry',
    ],
    { cwd: dynamoDbLocalDir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child, options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`DynamoDB Local did not start: ${(error as Error).message}\n${stderr}`, { cause: error });
  }
  return { endpoint, ...(child.pid !== undefined && { pid: child.pid }), stop: () => stopProcess(child) };
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const client = new DynamoDBClient({ endpoint, ...localAwsConfig, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`java exited with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms`);
        await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      }
    }
  } finally {
    client.destroy();
  }
}
