import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/free-port.js';
import { checkRecordedCalls } from '../support/iam/checked-calls.js';
import { startNpm } from '../support/npm-start.js';
import { eventually } from './support/harness.js';

/** What `npm start` itself asks DynamoDB Local: create the table, find its stream for the relay. */
const LOCAL_TOOLING_COMMANDS = ['CreateTableCommand', 'DescribeTableCommand', 'UpdateTimeToLiveCommand'];

let running: ChildProcess | undefined;
afterAll(() => {
  // Only if the test failed before stopping it: end the group it started, by its id.
  if (running?.pid && running.exitCode === null && running.signalCode === null)
    process.kill(-running.pid, 'SIGKILL');
});

describe('npm start', () => {
  it('serves the ops API to an operator signed in with the CLI only, pays a payout created over HTTP, runs the scheduler, and stops cleanly on Ctrl-C', async () => {
    const opsPort = await freePort();
    const recordedCalls = join(mkdtempSync(join(tmpdir(), 'npm-start-calls-')), 'aws-calls.jsonl');
    const dynamoDbPort = await freePort();
    const { child, output } = startNpm({
      OPS_PORT: String(opsPort),
      DYNAMODB_PORT: String(dynamoDbPort),
      SANDBOX_PORT: String(await freePort()),
      EVENTS_PORT: String(await freePort()),
      SCHEDULER_INTERVAL_MS: '300',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      RECORD_AWS_CALLS_TO: recordedCalls,
    });
    running = child;
    const base = `http://127.0.0.1:${opsPort}`;
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output()}`);
      return output().includes(`ops API ready on ${base}`) ? true : undefined;
    }, 60_000);
    expect(output()).toContain('curl -s -X POST');
    expect(output()).toMatch(/merchant wallet\s+\S+/);

    // Every request needs an ID token of its user pool: none, or only the header naming someone, is refused.
    expect((await fetch(`${base}/payouts`)).status).toBe(401);
    expect((await fetch(`${base}/payouts`, { headers: { 'x-ops-principal': 'alice' } })).status).toBe(401);
    // Alice signs in with the CLI as the banner says, with the password it prints; her token goes on each request.
    const password = /alice\s+requester\s+password (\S+)/.exec(output())?.[1];
    expect(password).toBeDefined();
    const cliEnv = { ...process.env, PAYOUTS_HOME: mkdtempSync(join(tmpdir(), 'npm-start-home-')) };
    const cli = (args: string[], input?: string) =>
      execFileSync(
        process.execPath,
        [resolve(import.meta.dirname, '../../scripts/payouts.mjs'), '--api', base, ...args],
        {
          env: cliEnv,
          encoding: 'utf8',
          ...(input !== undefined && { input }),
        },
      );
    expect(cli(['login', '--user', 'alice', '--password-stdin'], `${password}\n`)).toContain(
      'signed in as alice',
    );
    const token = cli(['token', '--principal', 'alice']).trim();
    const authed = (url: string, init: RequestInit = {}) =>
      fetch(url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
      });

    // The sample curl it prints works as printed.
    const sample = /-d '(\{.*\})'/.exec(output())?.[1];
    expect(sample).toBeDefined();
    const sampled = await authed(`${base}/payouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'demo-1' },
      body: sample,
    });
    expect(sampled.status).toBe(201);
    expect(await sampled.json()).toMatchObject({ status: 'succeeded' });

    // So does the event it prints: a `Payout Requested` put on the local bus, paid by that rule's handler.
    const busUrl = /event bus\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1];
    const eventSample =
      /-X POST http:\/\/127\.0\.0\.1:\d+ -H 'content-type: application\/json' -d '(\{"Entries".*\})'/.exec(
        output(),
      )?.[1];
    expect(busUrl).toBeDefined();
    expect(eventSample).toBeDefined();
    const put = await fetch(busUrl as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: eventSample,
    });
    expect(await put.json()).toMatchObject({ FailedEntryCount: 0 });
    const byEvent = await eventually(async () => {
      const list = (await (await authed(`${base}/payouts`)).json()) as {
        items: { narration: string; status: string; origin?: string }[];
      };
      return list.items.find(
        (payout) => payout.narration === 'event payout' && payout.status === 'succeeded',
      );
    }, 15_000);
    expect(byEvent).toBeDefined();

    const health = await authed(`${base}/health`);
    expect(health.status).toBe(200);

    const created = await authed(`${base}/payouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'e2e-1' },
      body: JSON.stringify({
        type: 'bank_transfer',
        amount: 250_000,
        currency: 'NGN',
        narration: 'e2e payout',
        beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' },
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const paid = await eventually(async () => {
      const body = (await (await authed(`${base}/payouts/${id}`)).json()) as { status: string };
      return body.status === 'succeeded' ? body : undefined;
    }, 15_000);
    expect(paid).toMatchObject({ status: 'succeeded', receipt: { status: 'SUCCESS' } });

    // A scheduled payout is released and paid by the local scheduler, not by the request.
    const scheduleAt = new Date(Date.now() + 1500).toISOString();
    const scheduled = await authed(`${base}/payouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'e2e-2' },
      body: JSON.stringify({
        type: 'bank_transfer',
        amount: 100_000,
        currency: 'NGN',
        narration: 'e2e scheduled',
        scheduleAt,
        beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' },
      }),
    });
    const scheduledBody = (await scheduled.json()) as { id: string; status: string };
    expect(scheduledBody.status).toBe('scheduled');
    await eventually(async () => {
      const body = (await (await authed(`${base}/payouts/${scheduledBody.id}`)).json()) as { status: string };
      return body.status === 'succeeded' ? true : undefined;
    }, 20_000);
    // Paid by the deployed worker through the submission queue's stand-in, not by the sweep itself.
    expect(output()).toContain('submission queue http://127.0.0.1:');
    expect(output()).toMatch(/"message":"submission batch finished".*"sent":1/);

    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
      child.once('exit', (code, signal) => resolveExit({ code, signal })),
    );
    process.kill(-(child.pid as number), 'SIGINT');
    const { code, signal } = await exited;
    // npm re-raises the interrupt it received, as it does for any script; the app itself exits 0.
    expect(code === 0 || signal === 'SIGINT').toBe(true);
    await eventually(async () => (output().includes('stopped DynamoDB Local') ? true : undefined), 15_000);
    expect(output()).not.toContain('could not stop');
    await expect(fetch(`${base}/health`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${dynamoDbPort}`)).rejects.toThrow();

    // The IAM proof: every AWS call of the run, made by the function that serves it in AWS, is allowed by that
    // function's role; the only calls outside a function are the local tooling's (the table, the stream relay).
    const verdict = await checkRecordedCalls(readFileSync(recordedCalls, 'utf8').trim().split('\n'));
    expect(verdict.denials).toEqual([]);
    expect(Object.keys(verdict.callsByFunction)).toEqual(
      expect.arrayContaining([
        // POST /payouts over HTTP runs as the API function serving it in AWS.
        'api-payouts',
        'sweep-due-payouts',
        'submit-payouts',
        'reconcile-payouts',
        'payout-requested',
        'publish-domain-events',
      ]),
    );
    expect(verdict.unattributed.filter((command) => !LOCAL_TOOLING_COMMANDS.includes(command))).toEqual([]);
  }, 120_000);

  it('refuses a real provider: a non-loopback PROVIDER_BASE_URL with a token and PIN stops it before anything starts', async () => {
    const { child, output } = startNpm({
      PROVIDER_BASE_URL: 'https://api.provider.example',
      PROVIDER_TOKEN: 'live-token-NEVER-PRINT',
      PROVIDER_PIN: '4821',
      OPS_PORT: String(await freePort()),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
    running = child;
    const code = await new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
    expect(code).not.toBe(0);
    expect(output()).toContain('PROVIDER_BASE_URL: must be on this machine');
    expect(output()).not.toContain('DynamoDB Local');
    expect(output()).not.toContain('NEVER-PRINT');
  }, 60_000);
});
