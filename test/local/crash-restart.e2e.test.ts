import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchProvider, startSandboxProcess } from '../../bench/sandbox-process.js';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';
import { freePort } from '../../lib/local/free-port.js';
import { eventually } from '../api/support/harness.js';
import { startNpm } from '../support/npm-start.js';

/**
 * The whole local stack killed with SIGKILL mid-drain (npm start and DynamoDB Local, its table on disk) and
 * started again over the same table: the sandbox runs as its own process, so its ledger is the provider's
 * memory across the crash, as a real provider's is.
 */
const PAYOUTS = 60;
const projectRoot = resolve(import.meta.dirname, '..', '..');

let provider: BenchProvider | undefined;
let dynamoDb: DynamoDbLocal | undefined;
let running: ChildProcess | undefined;
afterAll(async () => {
  // Only what this test started, by its id.
  if (running?.pid && running.exitCode === null && running.signalCode === null)
    process.kill(-running.pid, 'SIGKILL');
  await dynamoDb?.stop();
  await provider?.close();
});

/** Kills the process group of `npm start` as a power cut would, and waits for it to be gone. */
async function killStack(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  process.kill(-(child.pid as number), 'SIGKILL');
  await exited;
}

async function killDynamoDb(local: DynamoDbLocal): Promise<void> {
  if (local.pid === undefined) throw new Error('DynamoDB Local has no pid');
  process.kill(local.pid, 'SIGKILL');
  await eventually(async () => {
    try {
      process.kill(local.pid as number, 0);
      return undefined;
    } catch {
      return true;
    }
  }, 10_000);
}

async function startStack(dbPath: string, sandbox: BenchProvider) {
  dynamoDb = await startDynamoDbLocal({ dbPath });
  const opsPort = await freePort();
  const { child, output } = startNpm({
    // Its requests name a principal by header (the sign-in is proved in test/local/operator-sign-in.e2e.test.ts).
    LOCAL_TRUST_PRINCIPAL_HEADER: '1',
    OPS_PORT: String(opsPort),
    EVENTS_PORT: String(await freePort()),
    DYNAMODB_ENDPOINT: dynamoDb.endpoint,
    PROVIDER_BASE_URL: sandbox.url,
    PROVIDER_TOKEN: sandbox.token,
    PROVIDER_PIN: sandbox.pin,
    SCHEDULER_INTERVAL_MS: '300',
    // Short lease and grace, so an attempt cut by the kill is proved absent (or found) within the test.
    PROVIDER_TIMEOUT_MS: '2000',
    SUBMIT_LEASE_MS: '5000',
    RECONCILE_GRACE_MS: '3000',
    RECONCILE_INTERVAL_MS: '1000',
    RETRY_BASE_MS: '1000',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  running = child;
  const base = `http://127.0.0.1:${opsPort}`;
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output()}`);
    return output().includes(`ops API ready on ${base}`) ? true : undefined;
  }, 60_000);
  return { child, base, output };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-ops-principal': 'crash-e2e', ...headers },
    body: JSON.stringify(body),
  });

async function ledgerNarrations(sandbox: BenchProvider): Promise<string[]> {
  const ledger = (await (await fetch(`${sandbox.url}/__sandbox/ledger`)).json()) as {
    operations: { narration: string }[];
  };
  return ledger.operations.map((operation) => operation.narration);
}

describe('npm start over a table that outlives it', () => {
  it('loses no payout and pays none twice when the whole stack is killed mid-drain and started again', async () => {
    const dbPath = mkdtempSync(join(tmpdir(), 'payouts-dbpath-'));
    provider = await startSandboxProcess({ latencyMs: 100, projectRoot });
    const sandbox = provider;
    // Transient faults: every request above 4 a second is answered 429 (Retry-After 1), so the drain is slow.
    await sandbox.injectFault({ path: '*', fault: 'rate-limit', perSecond: 4, times: 0 });

    const first = await startStack(dbPath, sandbox);
    // Created while paused, then resumed: the sweeper hands all of them to the queue at once.
    expect((await post(`${first.base}/controls/pause`, { reason: 'crash e2e' })).status).toBe(200);
    const ids: string[] = [];
    for (let index = 0; index < PAYOUTS; index++) {
      const created = await post(
        `${first.base}/payouts`,
        {
          type: 'bank_transfer',
          amount: 100_000 + index,
          currency: 'NGN',
          narration: `crash e2e ${index}`,
          beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' },
        },
        { 'idempotency-key': `crash-e2e-${index}` },
      );
      expect(created.status).toBe(201);
      ids.push(((await created.json()) as { id: string }).id);
    }
    expect((await post(`${first.base}/controls/resume`, { reason: 'crash e2e' })).status).toBe(200);
    const paidAtProvider = async () => {
      const narrations = await ledgerNarrations(sandbox);
      return ids.filter((id) => narrations.some((narration) => narration.includes(`po_${id}`)));
    };
    // Mid-drain: some paid, most not yet.
    await eventually(async () => ((await paidAtProvider()).length >= 8 ? true : undefined), 60_000);

    await killStack(first.child);
    if (dynamoDb) await killDynamoDb(dynamoDb);
    const paidBeforeRestart = await paidAtProvider();
    expect(paidBeforeRestart.length).toBeLessThan(PAYOUTS);

    const second = await startStack(dbPath, sandbox);
    let last: string[] = [];
    const statuses = await eventually(
      async () => {
        const all = await Promise.all(
          ids.map(
            async (id) =>
              ((await (await fetch(`${second.base}/payouts/${id}`)).json()) as { status: string }).status,
          ),
        );
        last = all;
        return all.every((status) => status === 'succeeded') ? all : undefined;
      },
      120_000,
      500,
    ).catch((error: Error) => {
      const counts: Record<string, number> = {};
      for (const status of last) counts[status] = (counts[status] ?? 0) + 1;
      throw new Error(`${error.message}: ${JSON.stringify(counts)}\n${second.output().slice(-3000)}`);
    });
    expect(statuses).toHaveLength(PAYOUTS);

    const narrations = await ledgerNarrations(sandbox);
    for (const id of ids) {
      expect(narrations.filter((narration) => narration.includes(`po_${id}`))).toHaveLength(1);
    }
    // The rest went out after the restart, each once.
    expect((await paidAtProvider()).length).toBe(PAYOUTS);
    await killStack(second.child);
  }, 300_000);
});
