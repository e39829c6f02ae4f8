import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../lib/cli/commands.js';
import { formatForPeople } from '../../lib/cli/format.js';
import { OpsClient, regionOfApiUrl } from '../../lib/cli/ops-client.js';
import { type LocalApiServer, serveApiGatewayHandler } from '../../lib/local/http-to-apigw.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { NodeSha256 } from '../../lib/shared/node-sha256.js';
import { type ApiHarness, startApiHarness } from '../api/support/harness.js';
import { runCliCaptured } from '../support/cli-run.js';
import { bankTransfer } from '../support/engine-harness.js';

/** No session of the machine's own `~/.payouts` reaches these tests: the CLI names its callers by header here. */
const emptyHome = mkdtempSync(join(tmpdir(), 'ops-cli-home-'));

/** Runs the CLI in this process, capturing what it prints; `answers` are the person's replies to questions. */
const cli = (
  argv: string[],
  env: Record<string, string> = {},
  answers: boolean[] = [],
  credentials: CliIo['credentials'] = () => async () => ({
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'test-secret',
  }),
) => runCliCaptured(argv, { home: emptyHome, env, answers, credentials });

/**
 * An HTTP server on 127.0.0.1 that answers every request with `status` and `body` (JSON) and keeps what arrived:
 * the API as the CLI sees it, for what the local stack cannot answer (API Gateway's own refusals) or to read the
 * request itself.
 */
async function recordingServer(status: number, body: unknown) {
  const received: { req: IncomingMessage; body: string }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      received.push({ req, body: text });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

describe('the ops CLI against the local stack', () => {
  let h: ApiHarness;
  let server: LocalApiServer;
  let bodyFile: string;

  beforeAll(async () => {
    h = await startApiHarness();
    server = await serveApiGatewayHandler(h.api, { port: 0 });
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    bodyFile = join(mkdtempSync(join(tmpdir(), 'ops-cli-')), 'payout.json');
    const amount = payoutEngineOf(h.runtime).ctx.config.approvalThresholdKobo;
    writeFileSync(bodyFile, JSON.stringify(bankTransfer(amount, { narration: 'supplier 17' })));
  });
  afterAll(async () => {
    await server.close();
    await h.close();
  });

  it('creates a payout once per key, lets a second person approve it, and lists it across pages', async () => {
    const as = (principal: string) => ['--api', server.url, '--principal', principal, '--json'];
    const created = await cli([...as('alice'), 'payouts', 'create', '--key', 'cli-1', '--body', bodyFile]);
    expect(created.status).toBe(0);
    const payout = created.json();
    expect(payout).toMatchObject({ status: 'pending_approval', requestedBy: { id: 'alice' } });

    const again = await cli([...as('alice'), 'payouts', 'create', '--key', 'cli-1', '--body', bodyFile]);
    expect(again.json().id).toBe(payout.id);

    const bySelf = await cli([...as('alice'), 'payouts', 'approve', payout.id, '--yes']);
    expect(bySelf.status).toBe(1);
    expect(bySelf.err).toContain('HTTP 403');

    const declined = await cli([...as('bob'), 'payouts', 'approve', payout.id], {}, [false]);
    expect(declined.status).toBe(3);
    expect(declined.err).toContain('NGN 1,000,000.00');
    expect(declined.err).toContain('requested  alice');
    expect(declined.err).toContain('0123456789');
    expect(declined.questions).toHaveLength(1);
    expect((await payoutEngineOf(h.runtime).get(payout.id))?.status).toBe('pending_approval');

    const approved = await cli([...as('bob'), 'payouts', 'approve', payout.id], {}, [true]);
    expect(approved.status).toBe(0);
    expect(approved.json()).toMatchObject({ approvedBy: { id: 'bob' } });

    const second = await cli([...as('alice'), 'payouts', 'create', '--key', 'cli-2', '--body', bodyFile]);
    expect(second.status).toBe(0);
    const everyPage = await cli([...as('carol'), 'payouts', 'list', '--limit', '1', '--all']);
    expect(
      everyPage
        .json()
        .items.map((item: { id: string }) => item.id)
        .sort(),
    ).toEqual([payout.id, second.json().id].sort());
    const onePage = await cli([...as('carol'), 'payouts', 'list', '--limit', '1']);
    expect(onePage.json().items).toHaveLength(1);
    expect(onePage.json().nextCursor).toEqual(expect.any(String));
  });

  it('pauses and resumes with a reason, and reaches any route with `request`', async () => {
    const base = ['--api', server.url, '--principal', 'ops-lead', '--json'];
    expect((await cli([...base, 'controls', 'pause', '--reason', 'month-end check'])).status).toBe(0);
    const shown = await cli([...base, 'request', 'GET', '/controls']);
    expect(shown.json()).toMatchObject({
      paused: true,
      reason: 'month-end check',
      updatedBy: { id: 'ops-lead' },
    });
    expect((await cli([...base, 'controls', 'resume'])).status).toBe(0);
    // A write without a body is still JSON, as the local stack requires of every write.
    const bare = await cli([...base, 'request', 'POST', '/controls/pause']);
    expect(bare.status).toBe(1);
    expect(bare.err).toContain('HTTP 400');
    expect(bare.err).toContain('a JSON body is required');
    expect((await cli([...base, 'controls', 'show'])).json()).toMatchObject({ paused: false });
  });

  it('prints tables for people by default: one row per payout, amounts in naira', async () => {
    const listed = await cli(['--api', server.url, 'payouts', 'list']);
    expect(listed.status).toBe(0);
    const [header, ...rows] = listed.out.trim().split('\n');
    expect(header).toMatch(/^ID\s+STATUS\s+TYPE\s+AMOUNT/);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toContain('NGN 1,000,000.00');
    const health = await cli(['--api', server.url, 'health', 'check', '--deep']);
    expect(health.out).toContain('  table:\n    status: ok');
  });

  it('uploads a payroll file as CSV, and a second person approves the run as a whole', async () => {
    const { writeFileSync } = await import('node:fs');
    const runFile = bodyFile.replace(/payout\.json$/, 'run.csv');
    const amount = payoutEngineOf(h.runtime).ctx.config.approvalThresholdKobo;
    writeFileSync(
      runFile,
      [
        'reference,amount,bankCode,accountNumber,accountName,narration',
        `cli-001,${amount},058,0123456789,Ada Obi,June salary`,
        'cli-002,150000,044,0987654321,Bola Ade,June salary',
      ].join('\n'),
    );
    const created = await cli([
      ...['--api', server.url, '--principal', 'payroll-clerk', '--json'],
      ...['payout-runs', 'create', '--body', runFile, '--key', 'cli-run-1'],
    ]);
    expect(created.status).toBe(0);
    expect(created.json()).toMatchObject({
      status: 'pending_approval',
      count: 2,
      totalKobo: amount + 150000,
    });
    const runId: string = created.json().runId;
    const own = await cli([
      ...['--api', server.url, '--principal', 'payroll-clerk', '--yes'],
      ...['payout-runs', 'approve', runId],
    ]);
    expect(own.status).toBe(1);
    expect(own.err).toContain('HTTP 403');
    const approved = await cli(
      [
        ...['--api', server.url, '--principal', 'finance-lead', '--json'],
        ...['payout-runs', 'approve', runId],
      ],
      {},
      [true],
    );
    expect(approved.status).toBe(0);
    // The approver is shown the run as a whole before deciding: its rows, total, largest rows and checksum.
    expect(approved.err).toContain('rows       2');
    expect(approved.err).toContain('total      NGN 1,001,500.00');
    expect(approved.err).toContain('cli-001 NGN 1,000,000.00');
    expect(approved.err).toMatch(/file sha256 [0-9a-f]{64}/);
    expect(approved.json()).toMatchObject({ runId, approvedBy: { id: 'finance-lead' } });
  });

  it('refuses a create without --key (a retried create must never pay twice) and an unknown command, sending nothing', async () => {
    const before = (await h.items()).length;
    const noKey = await cli(['--api', server.url, 'payouts', 'create', '--body', bodyFile]);
    expect(noKey.status).toBe(2);
    expect(noKey.err).toContain('--key');
    expect((await cli(['--api', server.url, 'payouts', 'delete', 'x'])).status).toBe(2);
    expect((await h.items()).length).toBe(before);
  });

  it('sends a bulk corrections file with --csv as text/csv, as it is', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const csv = 'bulkPayoutItemId,narration\r\n5a4db0c0-0000-4000-800d-000000000003,June salaries\r\n';
    const file = join(mkdtempSync(join(tmpdir(), 'ops-cli-')), 'june-fixes.txt');
    writeFileSync(file, csv);
    const api = await recordingServer(202, { jobId: 'job-1', status: 'running' });
    try {
      const reply = await cli(['--api', api.url, '--json', 'bulk', 'corrections', '--csv', file]);
      expect(reply.status).toBe(0);
      expect(
        api.received.map(({ req, body }) => ({
          method: req.method,
          url: req.url,
          type: req.headers['content-type'],
          body,
        })),
      ).toEqual([{ method: 'POST', url: '/bulk-payout-items/corrections', type: 'text/csv', body: csv }]);
    } finally {
      await api.close();
    }
  });

  it("prints a usage error with that command's usage alone, not the whole help", async () => {
    const noKey = await cli(['--api', server.url, 'payouts', 'create', '--body', bodyFile]);
    expect(noKey.err.split('\n')[0]).toBe(
      'payouts create needs --key: the same key on a retry never pays twice',
    );
    expect(noKey.err).toContain('usage: payouts payouts create --body FILE|- --key KEY [--json]');
    expect(noKey.err).not.toContain('Commands:');
    // An unknown flag of a known command: that command's usage.
    const flag = await cli(['--api', server.url, 'payouts', 'approve', 'x', '--colour']);
    expect(flag.status).toBe(2);
    expect(flag.err).toContain("Unknown option '--colour'");
    expect(flag.err).toContain('usage: payouts payouts approve <id>');
    expect(flag.err).not.toContain('Commands:');
    // An unknown command of a known group: the group's commands.
    const unknown = await cli(['--api', server.url, 'payouts', 'delete', 'x']);
    expect(unknown.err).toContain('payouts commands:');
    expect(unknown.err).toContain('usage: payouts payouts list');
    expect(unknown.err).not.toContain('usage: payouts controls');
  });

  it('says how to sign in when the AWS credentials are missing, without a stack trace or a request', async () => {
    const noCredentials: CliIo['credentials'] = () => async () => {
      const error = new Error('Could not load credentials from any providers');
      error.name = 'CredentialsProviderError';
      throw error;
    };
    // A name that never resolves: signing fails before any connection is made.
    const api = ['--api', 'https://ops.payouts.invalid', '--region', 'eu-west-1'];
    const reply = await cli([...api, 'payouts', 'list'], {}, [], noCredentials);
    expect(reply.status).toBe(1);
    expect(reply.err).toContain('no AWS credentials found');
    expect(reply.err).toContain('aws sso login');
    expect(reply.err).not.toMatch(/\n\s+at /);
  });

  it("says the credentials have expired when API Gateway refuses the request's token", async () => {
    const gateway = await recordingServer(403, {
      message: 'The security token included in the request is expired',
    });
    try {
      const url = gateway.url;
      const reply = await cli(['--api', url, 'payouts', 'list']);
      expect(reply.status).toBe(1);
      expect(reply.err).toContain('HTTP 403');
      expect(reply.err).toContain('your AWS credentials have expired');
      expect(reply.err).toContain('aws sso login');
    } finally {
      await gateway.close();
    }
  });
});

describe('the ops CLI shows a recurring payout for people', () => {
  it('lists its audit trail with who did what, and whether each command took effect', () => {
    const shown = formatForPeople({
      id: '01REC',
      status: 'active',
      audit: [
        {
          sequence: 1,
          at: '2026-05-04T08:00:00.000Z',
          actor: { id: 'alice', kind: 'user' },
          action: 'created',
          reason: 'created by alice',
          committed: true,
        },
        {
          sequence: 1,
          at: '2026-05-04T09:00:00.000Z',
          actor: { id: 'bob', kind: 'user' },
          action: 'paused',
          reason:
            'not committed (a concurrent change won after its retries, or it was cut off): …; paused by bob',
          committed: false,
        },
      ],
    });
    const lines = shown.split('\n').slice(3);
    expect(lines[0]).toBe('  AT                        ACTOR  ACTION   COMMITTED  REASON');
    expect(lines[1]).toBe('  2026-05-04T08:00:00.000Z  alice  created  true       created by alice');
    // A long reason is cut in the table (--json has it whole).
    expect(lines[2]).toMatch(
      /^ {2}2026-05-04T09:00:00\.000Z {2}bob {4}paused {3}false {6}not committed .{60,}…$/,
    );
  });
});

describe('the ops CLI shows a payout for people', () => {
  it('lists its audit trail with who did what, from which status to which, and why', () => {
    const shown = formatForPeople({
      id: '01PAY',
      status: 'pending',
      audit: [
        {
          sequence: 1,
          at: '2026-05-04T08:00:00.000Z',
          actor: { id: 'alice', kind: 'user' },
          from: null,
          to: 'pending_approval',
          reason: 'above the approval threshold',
        },
        {
          sequence: 2,
          at: '2026-05-04T09:00:00.000Z',
          actor: { id: 'bob', kind: 'user' },
          from: 'pending_approval',
          to: 'pending',
          reason: 'approved by bob',
        },
      ],
    });
    expect(shown.split('\n').slice(3)).toEqual([
      '  AT                        ACTOR  CHANGE                      REASON',
      '  2026-05-04T08:00:00.000Z  alice  created → pending_approval  above the approval threshold',
      '  2026-05-04T09:00:00.000Z  bob    pending_approval → pending  approved by bob',
    ]);
  });
});

describe('the ops CLI covers the API', () => {
  it('has a command for every route of the ops API', async () => {
    const { apiRoutes } = await import('../../lib/api/index.js');
    const { COMMANDS } = await import('../../lib/cli/command-table.js');
    const commands = new Set(COMMANDS.map((c) => `${c.method} ${c.path}`));
    const missing = apiRoutes.map((r) => `${r.method} ${r.path}`).filter((route) => !commands.has(route));
    expect(missing).toEqual([]);
  });

  it('reads a command table that is the one the routes give (npm run openapi writes it)', async () => {
    const { apiRoutes } = await import('../../lib/api/index.js');
    const { COMMANDS, commandsOf } = await import('../../lib/cli/command-table.js');
    expect(COMMANDS).toEqual(commandsOf(apiRoutes));
  });
});

describe('the ops CLI in AWS', () => {
  it('refuses --principal and plain http for an API in AWS: there you are who your credentials say', async () => {
    const aws = 'https://abc123.execute-api.eu-west-1.amazonaws.com';
    expect((await cli(['--api', aws, '--principal', 'alice', 'controls', 'show'])).status).toBe(2);
    expect((await cli(['--api', 'http://abc.example', 'controls', 'show'])).status).toBe(2);
    expect(regionOfApiUrl(aws)).toBe('eu-west-1');
  });

  it('signs each request with SigV4 for execute-api so that the signature verifies over what arrived', async () => {
    const credentials = {
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    };
    const server = await recordingServer(200, { ok: true });
    const { url: baseUrl, received } = server;
    try {
      const client = new OpsClient({ kind: 'aws', baseUrl, region: 'eu-west-1', credentials });
      const answer = await client.send({
        method: 'POST',
        path: '/payouts',
        query: { dryRun: 'no' },
        body: { amount: 250_000 },
        idempotencyKey: 'inv-1',
      });
      expect(answer.status).toBe(200);
      const [{ req, body }] = received as [{ req: IncomingMessage; body: string }];
      expect(req.headers['x-ops-principal']).toBeUndefined();
      const authorization = String(req.headers.authorization);
      expect(authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request/,
      );
      const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
      expect(signedHeaders).toEqual(expect.arrayContaining(['host', 'idempotency-key', 'x-amz-date']));
      // Re-sign what the server received, with the same date, and compare: the verifier API Gateway runs.
      const url = new URL(req.url ?? '/', baseUrl);
      const verifier = new SignatureV4({
        service: 'execute-api',
        region: 'eu-west-1',
        credentials,
        sha256: NodeSha256,
      });
      const headers = Object.fromEntries(signedHeaders.map((name) => [name, String(req.headers[name])]));
      const amzDate = String(req.headers['x-amz-date']);
      const resigned = await verifier.sign(
        {
          method: req.method ?? 'GET',
          protocol: 'http:',
          hostname: '127.0.0.1',
          port: Number(url.port),
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers,
          body,
        },
        {
          signingDate: new Date(
            `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
          ),
        },
      );
      expect(resigned.headers.authorization).toBe(authorization);
      expect(JSON.parse(body)).toEqual({ amount: 250_000 });
    } finally {
      await server.close();
    }
  });
});
