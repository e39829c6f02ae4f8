import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { isLoopbackUrl, OpsClient, type OpsRequest, type OpsTarget, regionOfApiUrl } from './ops-client.js';

/** One command of the CLI: the words that name it, its route, and the positional arguments the path takes. */
interface CommandSpec {
  readonly words: readonly [string, string];
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly path: string;
  readonly summary: string;
  /** `--body FILE` (or `-` for standard input) is required. */
  readonly body?: 'required' | 'optional';
  /** Needs `--key`: a create is idempotent per key, so a retried command never pays twice. */
  readonly idempotent?: boolean;
  /** A list route: `--all` walks every page. */
  readonly list?: boolean;
  /** Query flags passed through (`--status needs_review`). */
  readonly query?: readonly string[];
  /** Flags that become body fields when no `--body` is given (`--reason "…"`). */
  readonly bodyFlags?: readonly string[];
}

const COMMANDS: readonly CommandSpec[] = [
  {
    words: ['payouts', 'list'],
    method: 'GET',
    path: '/payouts',
    summary: 'list payouts, newest first',
    list: true,
    query: ['status', 'type', 'from', 'to', 'limit'],
  },
  { words: ['payouts', 'get'], method: 'GET', path: '/payouts/{id}', summary: 'a payout with its audit' },
  {
    words: ['payouts', 'create'],
    method: 'POST',
    path: '/payouts',
    summary: 'create a payout from a JSON body',
    body: 'required',
    idempotent: true,
  },
  {
    words: ['payouts', 'approve'],
    method: 'POST',
    path: '/payouts/{id}/approve',
    summary: 'approve a payout as the second person',
  },
  {
    words: ['payouts', 'cancel'],
    method: 'POST',
    path: '/payouts/{id}/cancel',
    summary: 'cancel a payout not yet submitted',
    bodyFlags: ['reason'],
  },
  {
    words: ['payouts', 'resolve'],
    method: 'POST',
    path: '/payouts/{id}/resolve',
    summary: 'decide a payout in needs_review',
    body: 'required',
  },
  { words: ['controls', 'show'], method: 'GET', path: '/controls', summary: 'whether payouts are paused' },
  {
    words: ['controls', 'pause'],
    method: 'POST',
    path: '/controls/pause',
    summary: 'pause every submission',
    bodyFlags: ['reason'],
  },
  {
    words: ['controls', 'resume'],
    method: 'POST',
    path: '/controls/resume',
    summary: 'resume submissions',
    bodyFlags: ['reason'],
  },
];

const USAGE = `usage: npm run ops -- [--api URL] [--region R] [--principal P] <command> [args] [flags]

Targets: --api (or PAYOUTS_API_URL). An https execute-api URL is signed with SigV4 using your AWS credentials
(the SDK's default chain); a loopback URL (npm start) is not signed and --principal names you instead.

Commands:
${COMMANDS.map((c) => `  ${[...c.words, ...placeholders(c.path)].join(' ').padEnd(28)} ${c.summary}`).join('\n')}
  request METHOD PATH          any route (--body FILE, --key K, --all, --query name=value)

Flags: --body FILE|- (JSON), --key KEY (Idempotency-Key), --all (every page of a list), --reason TEXT,
       --status, --type, --from, --to, --limit for lists.
Exit status: 0 on a 2xx answer, 1 on any other answer (the problem is printed on stderr), 2 on a usage error.`;

function placeholders(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => `<${match[1]}>`);
}

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readStdin: () => string;
  /** The AWS credentials for signing; the SDK's default chain unless a test gives its own. */
  readonly credentials: () => AwsCredentialIdentityProvider;
}

class UsageError extends Error {}

/**
 * Runs one CLI invocation and answers its exit status.
 *
 * @example await runCli(['--api', 'http://127.0.0.1:3000', '--principal', 'bob', 'payouts', 'approve', id], io)
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  let request: OpsRequest & { list: boolean };
  let client: OpsClient;
  try {
    request = requestOf(parsed, io);
    client = new OpsClient(targetOf(parsed.values, io));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (request.list && parsed.values.all) {
    const items: unknown[] = [];
    const pages = client.paginate(request);
    for (let next = await pages.next(); ; next = await pages.next()) {
      if (next.done) {
        if (next.value) return answer(next.value, io);
        break;
      }
      items.push(next.value);
    }
    io.out(`${JSON.stringify({ items }, null, 2)}\n`);
    return 0;
  }
  return answer(await client.send(request), io);
}

function answer(response: { status: number; body: unknown }, io: CliIo): number {
  const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body, null, 2);
  if (response.status >= 200 && response.status < 300) {
    io.out(`${text}\n`);
    return 0;
  }
  io.err(`HTTP ${response.status}\n${text}\n`);
  return 1;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      api: { type: 'string' },
      region: { type: 'string' },
      principal: { type: 'string' },
      body: { type: 'string' },
      key: { type: 'string' },
      all: { type: 'boolean' },
      reason: { type: 'string' },
      status: { type: 'string' },
      type: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      limit: { type: 'string' },
      query: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

type Parsed = ReturnType<typeof parse>;

function requestOf(parsed: Parsed, io: CliIo): OpsRequest & { list: boolean } {
  const [first = '', second = '', ...rest] = parsed.positionals;
  const { values } = parsed;
  const body = values.body === undefined ? undefined : readJson(values.body, io);
  if (first === 'request') {
    const [path] = rest;
    if (!path?.startsWith('/')) throw new UsageError('request needs METHOD and a PATH starting with /');
    const query = Object.fromEntries(
      (values.query ?? []).map((pair) => {
        const at = pair.indexOf('=');
        if (at < 1) throw new UsageError(`--query ${pair}: expected name=value`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
    );
    return {
      method: second.toUpperCase(),
      path,
      query,
      list: second.toUpperCase() === 'GET',
      ...(body !== undefined && { body }),
      ...(values.key !== undefined && { idempotencyKey: values.key }),
    };
  }
  const spec = COMMANDS.find((c) => c.words[0] === first && c.words[1] === second);
  if (!spec) throw new UsageError(`unknown command: ${[first, second].join(' ').trim()}`);
  const names = placeholders(spec.path);
  if (rest.length !== names.length) {
    throw new UsageError(`${spec.words.join(' ')} takes ${names.join(' ') || 'no arguments'}`);
  }
  let index = 0;
  const path = spec.path.replace(/\{\w+\}/g, () => encodeURIComponent(rest[index++] ?? ''));
  if (spec.body === 'required' && body === undefined)
    throw new UsageError(`${spec.words.join(' ')} needs --body`);
  if (spec.idempotent && values.key === undefined) {
    throw new UsageError(`${spec.words.join(' ')} needs --key: the same key on a retry never pays twice`);
  }
  const flagBody = Object.fromEntries(
    (spec.bodyFlags ?? []).flatMap((flag) => {
      const value = values[flag as keyof typeof values];
      return typeof value === 'string' ? [[flag, value]] : [];
    }),
  );
  const query = Object.fromEntries(
    (spec.query ?? []).flatMap((flag) => {
      const value = values[flag as keyof typeof values];
      return typeof value === 'string' ? [[flag, value]] : [];
    }),
  );
  const sentBody =
    body ?? (Object.keys(flagBody).length > 0 || spec.method === 'POST' ? flagBody : undefined);
  return {
    method: spec.method,
    path,
    query,
    list: spec.list === true,
    ...(sentBody !== undefined && { body: sentBody }),
    ...(values.key !== undefined && { idempotencyKey: values.key }),
  };
}

function targetOf(values: Parsed['values'], io: CliIo): OpsTarget {
  const baseUrl = values.api ?? io.env.PAYOUTS_API_URL;
  if (!baseUrl) throw new UsageError('name the API with --api URL or PAYOUTS_API_URL');
  let loopback: boolean;
  try {
    loopback = isLoopbackUrl(baseUrl);
  } catch {
    throw new UsageError(`--api ${baseUrl}: not a URL`);
  }
  if (loopback) {
    const principal = values.principal ?? io.env.PAYOUTS_PRINCIPAL;
    return { kind: 'local', baseUrl, ...(principal !== undefined && { principal }) };
  }
  if (values.principal !== undefined) {
    throw new UsageError('--principal is for a local stack only: in AWS you are who your credentials say');
  }
  if (!baseUrl.startsWith('https://')) throw new UsageError('an API in AWS is reached over https');
  const region = values.region ?? regionOfApiUrl(baseUrl) ?? io.env.AWS_REGION;
  if (!region) throw new UsageError('name the region with --region (the URL does not say it)');
  return { kind: 'aws', baseUrl, region, credentials: io.credentials() };
}

function readJson(source: string, io: CliIo): unknown {
  const text = source === '-' ? io.readStdin() : readFileSync(source, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--body ${source}: not JSON (${error instanceof Error ? error.message : error})`);
  }
}
