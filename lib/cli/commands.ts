import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { COMMANDS, type CommandSpec, placeholders } from './command-table.js';
import { describeForConfirmation, formatForPeople } from './format.js';
import { freshSession, LoginError, login } from './login.js';
import {
  isLoopbackUrl,
  OpsClient,
  type OpsRequest,
  type OpsResponse,
  type OpsTarget,
  regionOfApiUrl,
} from './ops-client.js';
import { loginHint, SessionError, SessionStore, sessionsDir } from './sessions.js';

const USAGE = `usage: payouts [--api URL | --stack NAME] [--region R] [--principal P] [--json] <command> [args] [flags]

The API: --api URL, or PAYOUTS_API_URL, or --stack NAME (the stack's OpsApiUrl output, read with your AWS
credentials). An https execute-api URL is signed with SigV4 using your AWS credentials (the SDK's default
chain: environment, SSO, profile), so you are who your credentials say. A loopback URL (npm start) takes the
ID token of its local user pool: sign in once with \`payouts login --user NAME\`, then --principal NAME (or
PAYOUTS_PRINCIPAL) picks that session (kept in $PAYOUTS_HOME or ~/.payouts, mode 0600).

Sign-in (local stack):
  ${'login --user NAME [--password-stdin]'.padEnd(44)} sign in to the local user pool (password asked, or read from stdin)
  ${'logout --user NAME'.padEnd(44)} forget that session
  ${'token --principal NAME'.padEnd(44)} print the session's ID token (curl -H "Authorization: Bearer $TOKEN")

Commands:
${COMMANDS.map((c) => `  ${[...c.words, ...placeholders(c.path)].join(' ').padEnd(44)} ${c.summary}`).join('\n')}
${COMMANDS.flatMap((c) => (c.aliases ?? []).map((words) => `  ${[...words, ...placeholders(c.path)].join(' ').padEnd(44)} = ${c.words.join(' ')}`)).join('\n')}
  ${'request METHOD PATH'.padEnd(44)} any route (--body FILE, --key K, --all)

Flags: --body FILE|- (JSON, or a .csv file where a command takes CSV), --csv FILE (a CSV body, any name),
       --watch (runs show: redraw a progress bar until the run ends), --key KEY (Idempotency-Key),
       --all (every page of a list), --reason TEXT, --out FILE (a CSV download written to FILE),
       --status, --state, --type, --kind, --from, --to, --limit (lists), --deep (health), --yes (no confirmation),
       --query name=value (any query parameter, repeatable),
       --json (the answer as JSON, for scripts; default: tables for people).
Exit status: 0 on a 2xx answer, 1 on any other answer (the problem is printed on stderr),
             2 on a usage error, 3 when a confirmation was declined (nothing was sent).`;

export const ExitCode = { Ok: 0, Refused: 1, Usage: 2, Declined: 3 } as const;

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readStdin: () => string;
  /** The AWS credentials for signing; the SDK's default chain unless a test gives its own. */
  readonly credentials: () => AwsCredentialIdentityProvider;
  /** Asks a yes/no question on the terminal; false when nobody can answer (no TTY). */
  readonly confirm: (question: string) => Promise<boolean>;
  /** The `OpsApiUrl` output of a CloudFormation stack. */
  readonly stackApiUrl: (stack: string, region: string | undefined) => Promise<string>;
  /** Asks for a password on the terminal without echoing it; undefined when nobody can answer (no TTY). */
  readonly askSecret?: (question: string) => Promise<string | undefined>;
  /** Waits between two reads of `--watch` (a test moves the run on here instead of waiting). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** How often `--watch` reads the run again. */
export const WATCH_INTERVAL_MS = 2_000;

/** A command line the CLI cannot run; `spec` is the command it named, when it named one. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly spec?: CommandSpec,
  ) {
    super(message);
  }
}

/**
 * One command's usage, printed under a usage error instead of the whole help: its words, arguments and the flags
 * it takes.
 *
 * @example commandUsage(spec) // 'usage: payouts payouts approve <id> [--reason TEXT] [--yes] [--json]\n  approve a payout…'
 */
export function commandUsage(spec: CommandSpec): string {
  const flags = [
    ...(spec.body === 'required' ? ['--body FILE|-'] : spec.body === 'optional' ? ['[--body FILE|-]'] : []),
    ...(spec.csv ? ['[--csv FILE]'] : []),
    ...(spec.idempotent ? ['--key KEY'] : []),
    ...(spec.bodyFlags ?? []).map((flag) => `[--${flag} ${flag === 'reason' ? 'TEXT' : 'VALUE'}]`),
    ...(spec.query ?? []).map((flag) => `[--${flag} VALUE]`),
    ...(spec.list ? ['[--all]'] : []),
    ...(spec.parts ? ['[--out FILE]'] : []),
    ...(spec.watch ? ['[--watch]'] : []),
    ...(spec.confirmFrom ? ['[--yes]'] : []),
    '[--json]',
  ];
  return `usage: payouts ${[...spec.words, ...placeholders(spec.path), ...flags].join(' ')}\n  ${spec.summary}`;
}

/** What follows a usage error: the command's own usage, the commands of a group, or where the help is. */
function usageAfter(error: UsageError | TypeError, words: readonly string[]): string {
  const named = (pair: readonly [string, string]) => pair[0] === words[0] && pair[1] === words[1];
  const spec =
    (error instanceof UsageError ? error.spec : undefined) ??
    COMMANDS.find((c) => named(c.words) || (c.aliases ?? []).some(named));
  if (spec) return commandUsage(spec);
  const group = COMMANDS.filter((c) => c.words[0] === words[0]);
  if (group.length > 0) return `${words[0]} commands:\n${group.map((c) => commandUsage(c)).join('\n')}`;
  return 'payouts --help lists every command and flag';
}

const OPTIONS = {
  api: { type: 'string' },
  stack: { type: 'string' },
  region: { type: 'string' },
  principal: { type: 'string' },
  user: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  body: { type: 'string' },
  csv: { type: 'string' },
  watch: { type: 'boolean' },
  key: { type: 'string' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  deep: { type: 'boolean' },
  reason: { type: 'string' },
  username: { type: 'string' },
  email: { type: 'string' },
  groups: { type: 'string' },
  status: { type: 'string' },
  state: { type: 'string' },
  kind: { type: 'string' },
  type: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  limit: { type: 'string' },
  out: { type: 'string' },
  query: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

type Parsed = ReturnType<typeof parse>;
type Planned = OpsRequest & {
  readonly list: boolean;
  readonly spec?: CommandSpec;
  readonly args: readonly string[];
};

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS });
}

/** The words of a command line that may not parse (an unknown flag): its positionals, read leniently. */
function commandWords(argv: readonly string[]): readonly string[] {
  return parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS, strict: false }).positionals;
}

/**
 * Runs one CLI invocation and answers its exit status.
 *
 * @example await runCli(['--api', 'http://127.0.0.1:3000', '--principal', 'bob', 'payouts', 'approve', id, '--yes'], io)
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: Parsed;
  let planned: Planned;
  let client: OpsClient;
  let unauthenticated: string;
  try {
    parsed = parse(argv);
    if (parsed.values.help || parsed.positionals.length === 0) {
      io.out(`${USAGE}\n`);
      return ExitCode.Ok;
    }
    const session = SESSION_COMMANDS.find((command) => command === parsed.positionals[0]);
    if (session !== undefined) return await sessionCommand(session, parsed, io);
    planned = plan(parsed, io);
    const target = await targetOf(parsed.values, io);
    client = new OpsClient(target.target);
    unauthenticated = target.unauthenticated;
  } catch (error) {
    if (error instanceof SessionError || error instanceof LoginError) {
      io.err(`${error.message}\nNothing was sent.\n`);
      return ExitCode.Refused;
    }
    if (!(error instanceof UsageError || (error instanceof TypeError && 'code' in error))) throw error;
    io.err(`${error.message}\n\n${usageAfter(error, commandWords(argv))}\n`);
    return ExitCode.Usage;
  }
  try {
    return await carryOut(parsed, planned, client, { ...io, unauthenticated });
  } catch (error) {
    const hint = credentialsHint(error);
    if (hint === undefined) throw error;
    io.err(`${hint}\n`);
    return ExitCode.Refused;
  }
}

/**
 * What to run when the AWS credentials are missing or expired, or undefined for any other error: a person is told
 * how to sign in, never shown a stack trace.
 */
export function credentialsHint(error: unknown): string | undefined {
  return error instanceof Error ? hintFor(error.name, error.message) : hintFor('', String(error));
}

function hintFor(name: string, message: string): string | undefined {
  const missing = name === 'CredentialsProviderError' || /could not load credentials/i.test(message);
  // The SDK's and API Gateway's words for it: ExpiredToken(Exception), "The security token included in the request
  // is expired", "The SSO session associated with this profile has expired".
  const expired = /ExpiredToken|TokenRefreshRequired|(token|session)\b[^.]*\b(is|has)( been)? expired/i.test(
    `${name} ${message}`,
  );
  if (!missing && !expired) return undefined;
  return `${missing ? 'no AWS credentials found' : 'your AWS credentials have expired'}: sign in again and retry.
  IAM Identity Center: aws sso login --profile <profile> (then --profile or AWS_PROFILE)
  an operator of the stack's user pool: docs/deploy.md, "Operators" (credentials for an hour)
Nothing was changed.`;
}

/** The commands that sign in and out of a local stack rather than call a route. */
const SESSION_COMMANDS = ['login', 'logout', 'token'] as const;

/** What a 401 of the local stack means for this invocation: what to run. */
type Io = CliIo & { readonly unauthenticated?: string };

/**
 * `login`, `logout` and `token`: the sessions of a local stack. In AWS a person signs in with their AWS tools
 * (`aws sso login`, or the user pool's sign-in in docs/deploy.md), which the CLI's credential chain then reads.
 */
async function sessionCommand(
  command: (typeof SESSION_COMMANDS)[number],
  parsed: Parsed,
  io: CliIo,
): Promise<number> {
  const { values } = parsed;
  if (parsed.positionals.length > 1) throw new UsageError(`${command} takes no arguments`);
  const username = values.user ?? values.principal ?? io.env.PAYOUTS_PRINCIPAL;
  if (username === undefined) throw new UsageError(`${command} needs --user NAME`);
  const store = new SessionStore(sessionsDir(io.env));
  if (command === 'logout') {
    io.out(store.remove(username) ? `signed out ${username}\n` : `${username} was not signed in\n`);
    return ExitCode.Ok;
  }
  const baseUrl = await apiUrlOf(values, io);
  if (!isLoopbackUrl(baseUrl)) {
    throw new UsageError(
      `payouts ${command} is for a local stack (npm start). In AWS, sign in with your AWS tools and the CLI signs with those credentials:
  IAM Identity Center: aws sso login --profile <profile>
  an operator of the stack's user pool: docs/deploy.md, "Operators"`,
    );
  }
  if (command === 'token') {
    io.out(`${(await freshSession(store, username, baseUrl, new Date())).idToken}\n`);
    return ExitCode.Ok;
  }
  const password = async () => {
    if (values['password-stdin']) return io.readStdin().replace(/\r?\n$/, '');
    const typed = await io.askSecret?.(`Password for ${username}: `);
    if (typed === undefined) {
      throw new LoginError('no terminal to ask the password on: pipe it in with --password-stdin');
    }
    return typed;
  };
  await login(baseUrl, username, { out: io.out, env: io.env, password });
  return ExitCode.Ok;
}

/** The planned request, sent: a confirmation first where money is decided, `--watch`, `--all` or the parts. */
async function carryOut(parsed: Parsed, planned: Planned, client: OpsClient, io: Io): Promise<number> {
  const show = (response: OpsResponse) => answer(response, io, parsed.values.json === true);

  if (planned.spec?.confirmFrom && !parsed.values.yes) {
    const subject = await client.send({ method: 'GET', path: fill(planned.spec.confirmFrom, planned.args) });
    if (subject.status !== 200) return show(subject);
    io.err(`${planned.spec.words.join(' ')}:\n${describeForConfirmation(subject.body)}\n`);
    if (!(await io.confirm('Proceed? [y/N] '))) {
      io.err('declined: nothing was sent (use --yes to skip this question)\n');
      return ExitCode.Declined;
    }
  }
  if (planned.spec?.watch && parsed.values.watch) return watch(client, planned, io);
  if (planned.list && parsed.values.all) {
    const items: unknown[] = [];
    const pages = client.paginate(planned);
    for (let next = await pages.next(); ; next = await pages.next()) {
      if (next.done) {
        if (next.value) return show(next.value);
        break;
      }
      items.push(next.value);
    }
    return show({ status: 200, headers: {}, body: { items } });
  }
  if (planned.spec?.parts) {
    const downloaded = await downloadParts(client, planned);
    const out = parsed.values.out;
    if (out === undefined || downloaded.status !== 200 || typeof downloaded.body !== 'string') {
      return show(downloaded);
    }
    writeFileSync(out, downloaded.body);
    const rows = downloaded.body.split('\r\n').length - 2;
    return show({ ...downloaded, body: `${out}: ${rows} row${rows === 1 ? '' : 's'}` });
  }
  return show(await client.send(planned));
}

/** Statuses a run ends in: `--watch` stops there. */
const RUN_ENDED = new Set(['completed', 'needs_attention', 'cancelled']);
/** Row statuses that are done for the progress bar (as the API's `percentDone` counts them). */
const ROW_DONE = new Set(['succeeded', 'failed', 'missed', 'cancelled', 'refused', 'cancelled_unsent']);
const BAR_WIDTH = 10;

/** One line of progress: `[#####.....] 50% 500/1000 sent, eta 20s`. */
export function progressLine(run: {
  count: number;
  percentDone: number;
  counts?: Record<string, number>;
  etaSeconds?: number;
  status: string;
}): string {
  const done = Object.entries(run.counts ?? {})
    .filter(([status]) => ROW_DONE.has(status))
    .reduce((sum, [, n]) => sum + n, 0);
  const filled = Math.min(BAR_WIDTH, Math.floor((run.percentDone * BAR_WIDTH) / 100));
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
  const tail = RUN_ENDED.has(run.status)
    ? run.status
    : run.etaSeconds !== undefined
      ? `eta ${run.etaSeconds}s`
      : run.status;
  return `${bar} ${run.percentDone}% ${done}/${run.count} sent, ${tail}`;
}

/** `runs show <id> --watch`: reads the run until it ends, redrawing one line; 0 once it ended. */
async function watch(client: OpsClient, planned: Planned, io: Io): Promise<number> {
  const sleep = io.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  for (;;) {
    const response = await client.send(planned);
    if (response.status !== 200) return answer(response, io, false);
    const run = response.body as Parameters<typeof progressLine>[0];
    io.out(`\r${progressLine(run)}`);
    if (RUN_ENDED.has(run.status)) {
      io.out('\n');
      return ExitCode.Ok;
    }
    await sleep(WATCH_INTERVAL_MS);
  }
}

/** The `rel="next"` target of a `Link` header: the path and query of the download's next part. */
function nextPart(link: string | undefined): { path: string; query: Record<string, string> } | undefined {
  const target = link === undefined ? undefined : /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
  if (target === undefined) return undefined;
  const url = new URL(target, 'http://parts.invalid');
  return { path: url.pathname, query: Object.fromEntries(url.searchParams) };
}

/**
 * A CSV download in parts (each answer at most what one Lambda answer holds): follows each part's `Link` to the
 * next and writes one file, the header row once. Stops at the first answer that is not a 200.
 */
async function downloadParts(client: OpsClient, planned: Planned): Promise<OpsResponse> {
  let response = await client.send(planned);
  let text = typeof response.body === 'string' ? response.body : '';
  for (let next = nextPart(response.headers.link); response.status === 200 && next; ) {
    response = await client.send({ method: 'GET', ...next });
    if (response.status !== 200) return response;
    const part = typeof response.body === 'string' ? response.body : '';
    text += part.slice(part.indexOf('\r\n') + 2);
    next = nextPart(response.headers.link);
  }
  return response.status === 200 ? { ...response, body: text } : response;
}

function answer(response: Pick<OpsResponse, 'status' | 'body'>, io: Io, json: boolean): number {
  const text =
    json || typeof response.body === 'string'
      ? typeof response.body === 'string'
        ? response.body
        : JSON.stringify(response.body, null, 2)
      : formatForPeople(response.body);
  if (response.status >= 200 && response.status < 300) {
    io.out(`${text}\n`);
    return ExitCode.Ok;
  }
  // API Gateway refuses a signature made with expired credentials before any function runs.
  const gatewayMessage = (response.body as { message?: unknown } | undefined)?.message;
  const hint =
    response.status === 403
      ? hintFor('', String(gatewayMessage ?? ''))
      : response.status === 401
        ? io.unauthenticated
        : undefined;
  io.err(`HTTP ${response.status}\n${text}\n${hint ? `${hint}\n` : ''}`);
  return ExitCode.Refused;
}

function fill(path: string, args: readonly string[]): string {
  let index = 0;
  return path.replace(/\{\w+\}/g, () => encodeURIComponent(args[index++] ?? ''));
}

function flagValues(values: Parsed['values'], names: readonly string[] = []): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => {
      const value = values[name as keyof typeof values];
      return typeof value === 'string' ? [[name, value]] : [];
    }),
  );
}

/**
 * Why `argv` is not a valid invocation (an unknown command or flag, a missing argument, `--body` or `--key`),
 * or undefined; reads no file and sends nothing, so documentation examples can be checked where they cannot run.
 *
 * @example usageProblem(['payouts', 'approve']) // 'payouts approve takes <id>'
 */
export function usageProblem(argv: readonly string[]): string | undefined {
  try {
    const parsed = parse(argv);
    if (parsed.values.help || parsed.positionals.length === 0) return undefined;
    if (SESSION_COMMANDS.some((command) => command === parsed.positionals[0])) {
      if (parsed.positionals.length > 1) return `${parsed.positionals[0]} takes no arguments`;
      const named = parsed.values.user ?? parsed.values.principal;
      return named === undefined ? `${parsed.positionals[0]} needs --user NAME` : undefined;
    }
    if (parsed.values.csv !== undefined && parsed.values.body !== undefined) {
      throw new UsageError('give --csv or --body, not both');
    }
    const withoutFile =
      parsed.values.body === undefined && parsed.values.csv === undefined
        ? parsed
        : { ...parsed, values: { ...parsed.values, body: '-', csv: undefined } };
    plan(withoutFile, { readStdin: () => '{}' });
    return undefined;
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) return error.message;
    throw error;
  }
}

function plan(parsed: Parsed, io: Pick<CliIo, 'readStdin'>): Planned {
  const [first = '', second = '', ...rest] = parsed.positionals;
  const { values } = parsed;
  if (values.csv !== undefined && values.body !== undefined)
    throw new UsageError('give --csv or --body, not both');
  const csvFile = values.csv ?? (values.body?.endsWith('.csv') ? values.body : undefined);
  const csv = csvFile === undefined ? undefined : readFileSync(csvFile, 'utf8');
  const body = values.body === undefined || csv !== undefined ? undefined : readJson(values.body, io);
  const keyed = values.key === undefined ? {} : { idempotencyKey: values.key };
  const extraQuery = Object.fromEntries(
    (values.query ?? []).map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError(`--query ${pair}: expected name=value`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  if (first === 'request') {
    const [path] = rest;
    if (!path?.startsWith('/')) throw new UsageError('request needs METHOD and a PATH starting with /');
    const query = extraQuery;
    const method = second.toUpperCase();
    return {
      method,
      path,
      query,
      list: method === 'GET',
      args: [],
      ...(body !== undefined && { body }),
      ...keyed,
    };
  }
  const named = (words: readonly [string, string]) => words[0] === first && words[1] === second;
  const spec = COMMANDS.find((c) => named(c.words) || (c.aliases ?? []).some(named));
  if (!spec) throw new UsageError(`unknown command: ${[first, second].join(' ').trim()}`);
  if (values.out !== undefined && spec.parts !== true) {
    throw new UsageError(`${spec.words.join(' ')}: --out is for a CSV download`, spec);
  }
  const names = placeholders(spec.path);
  if (rest.length !== names.length) {
    throw new UsageError(`${spec.words.join(' ')} takes ${names.join(' ') || 'no arguments'}`, spec);
  }
  if (values.watch && spec.watch !== true)
    throw new UsageError(`${spec.words.join(' ')}: --watch is for runs show`, spec);
  if (spec.body === 'required' && body === undefined && csv === undefined)
    throw new UsageError(`${spec.words.join(' ')} needs --body`, spec);
  if (csv !== undefined && spec.csv !== true)
    throw new UsageError(`${spec.words.join(' ')} takes a JSON --body, not a CSV file`, spec);
  if (spec.idempotent && values.key === undefined) {
    throw new UsageError(
      `${spec.words.join(' ')} needs --key: the same key on a retry never pays twice`,
      spec,
    );
  }
  const flagBody: Record<string, string | string[]> = flagValues(values, spec.bodyFlags);
  // A list field (`--groups requester,approver`) goes as an array.
  for (const name of spec.listFlags ?? []) {
    const value = flagBody[name];
    if (typeof value === 'string') {
      flagBody[name] = value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');
    }
  }
  const sentBody =
    body ?? (Object.keys(flagBody).length > 0 || spec.method === 'POST' ? flagBody : undefined);
  const query = { ...extraQuery, ...flagValues(values, spec.query), ...(values.deep && { deep: 'true' }) };
  return {
    method: spec.method,
    path: fill(spec.path, rest),
    query,
    list: spec.list === true,
    spec,
    args: rest,
    ...(csv !== undefined ? { csv } : sentBody !== undefined && { body: sentBody }),
    ...keyed,
  };
}

async function apiUrlOf(values: Parsed['values'], io: CliIo): Promise<string> {
  let baseUrl = values.api ?? io.env.PAYOUTS_API_URL;
  if (!baseUrl && values.stack)
    baseUrl = await io.stackApiUrl(values.stack, values.region ?? io.env.AWS_REGION);
  if (!baseUrl) throw new UsageError('name the API with --api URL, PAYOUTS_API_URL or --stack NAME');
  try {
    isLoopbackUrl(baseUrl);
  } catch {
    throw new UsageError(`--api ${baseUrl}: not a URL`);
  }
  return baseUrl;
}

/**
 * Where requests go and who they say the caller is, with what to run should the API answer 401. Locally the
 * session of --principal NAME is sent; an expired one stops here (nothing is sent). Without a session the name
 * goes as `X-Ops-Principal`, which only a stack started with LOCAL_TRUST_PRINCIPAL_HEADER=1 takes.
 */
async function targetOf(
  values: Parsed['values'],
  io: CliIo,
): Promise<{ target: OpsTarget; unauthenticated: string }> {
  const baseUrl = await apiUrlOf(values, io);
  if (isLoopbackUrl(baseUrl)) {
    const principal = values.principal ?? io.env.PAYOUTS_PRINCIPAL;
    if (principal === undefined) {
      return {
        target: { kind: 'local', baseUrl },
        unauthenticated:
          'sign in first: payouts login --user NAME, then --principal NAME. Nothing was changed.',
      };
    }
    let idToken: string | undefined;
    let missing = `${principal} is not signed in`;
    try {
      // An expired ID token is renewed with the session's refresh token; one that cannot be is an `expired`.
      idToken = (await freshSession(new SessionStore(sessionsDir(io.env)), principal, baseUrl, new Date()))
        .idToken;
    } catch (error) {
      if (!(error instanceof SessionError)) throw error;
      // An expired session is the one thing to fix before sending; without any, the stack may trust the name.
      if (error.problem === 'expired') throw error;
      missing = error.message.replace(/: run: .*$/, '');
    }
    return {
      target: { kind: 'local', baseUrl, ...(idToken === undefined ? { principal } : { idToken }) },
      unauthenticated: `${idToken === undefined ? missing : `the stack refused the session of ${principal}`}: ${loginHint(principal)}${values.api ? ` --api ${values.api}` : ''}. Nothing was changed.`,
    };
  }
  if (values.principal !== undefined) {
    throw new UsageError('--principal is for a local stack only: in AWS you are who your credentials say');
  }
  if (!baseUrl.startsWith('https://')) throw new UsageError('an API in AWS is reached over https');
  const region = values.region ?? regionOfApiUrl(baseUrl) ?? io.env.AWS_REGION;
  if (!region) throw new UsageError('name the region with --region (the URL does not say it)');
  return {
    target: { kind: 'aws', baseUrl, region, credentials: io.credentials() },
    unauthenticated: 'the API did not take your credentials. Nothing was changed.',
  };
}

function readJson(source: string, io: Pick<CliIo, 'readStdin'>): unknown {
  const text = source === '-' ? io.readStdin() : readFileSync(source, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--body ${source}: not JSON (${error instanceof Error ? error.message : error})`);
  }
}
