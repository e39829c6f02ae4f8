/**
 * Every command example of README.md and docs/*.md, run against one `npm start`, in document order (README.md
 * first, then docs/ by file name), so no example can go stale. The conventions, for whoever writes one:
 *
 * - Every ```sh or ```bash block runs, command by command, with `bash -c` in the repository's root, unless its
 *   first line is `# aws-only` (needs an AWS account) or `# long-running` (starts a server or runs for minutes).
 *   Those are not run but checked (test/docs/doc-examples.test.ts): the shell parses them, and every npm
 *   script, `npx payouts` command and flag, AWS CLI operation and path they name exists.
 * - Ports are the documented defaults: `http://127.0.0.1:3000` (ops API), `:3001` (event bus), `:3002` (the
 *   sandbox, as README's start line sets it); the test starts `npm start` on free ports and rewrites these.
 *   `NAME=value` lines (`API=http://127.0.0.1:3000`) set a variable for the rest of that file's examples; so do
 *   `NAME="$(npx payouts … token --principal alice)"` lines, with what the command prints (a signed-in
 *   operator's ID token for curl); each file starts without any, as a reader landing on the page would.
 * - Every request needs an ID token of the local user pool: a file signs its operators in first
 *   (`echo '<password>' | npx payouts --api $API login --user alice --password-stdin`, the passwords npm start
 *   prints). Their sessions live in a fresh PAYOUTS_HOME for this run, never the machine's own ~/.payouts.
 * - The stack is started with the variables of README's `npm start` line that carries variables
 *   (a lower approval threshold, instant settlement on), so the examples can show four eyes with small sums.
 * - A command's trailing comment says what to expect: `# 403: …` the HTTP status of its curl (default: any
 *   2xx); `# exit 3: …` its exit status (default 0). `.status == "pending"` in the comment asserts a field of
 *   the JSON answer. `<name> = .items[0].id` captures a field for later commands, which write `<name>`; the `id`
 *   of any successful JSON object answer is captured as `<id>`. A comment starting with `eventually` retries the
 *   command for a while (events are delivered after the bus answers).
 * - A command that fails, answers another status, or uses a placeholder nothing captured fails this test with
 *   its file and line. A run block may only call curl, `npx payouts` and `aws … --endpoint-url` against this
 *   machine, jq and echo; `aws` runs when the AWS CLI is installed, else its `put-events` is sent as the same
 *   PutEvents request with curl.
 * - `npx payouts` runs through npx the first time (which proves the package's bin resolves); later commands run
 *   the file that bin names, `node scripts/payouts.mjs`, directly: the same program, without npm's start-up of
 *   seconds per command on a loaded machine.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/free-port.js';
import { eventually } from '../api/support/harness.js';
import { startNpm } from '../support/npm-start.js';
import { commandProblems, simpleCommands } from './support/doc-checks.js';
import {
  BlockMode,
  type DocCommand,
  documentationFiles,
  placeholdersOf,
  readDocBlocks,
  shellWords,
  valueAt,
} from './support/doc-examples.js';

const root = resolve(import.meta.dirname, '..', '..');
const DOCUMENTED_PORTS = { api: 3000, bus: 3001, sandbox: 3002 } as const;

interface Answer {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The HTTP status of the last curl of the command, if it ran one. */
  readonly httpStatus?: number;
}

let stack: ReturnType<typeof startNpm> | undefined;
let ports: Record<keyof typeof DOCUMENTED_PORTS, number>;
let shimDir: string;
let awsInstalled = false;
let npxResolved = false;
let payoutsHome: string;
const CLI_BIN = 'scripts/payouts.mjs';

/** The variables of README's `npm start` line for the examples (the one that carries variables). */
function documentedStartEnvironment(): Record<string, string> {
  for (const block of readDocBlocks('README.md')) {
    for (const command of block.commands) {
      const words = shellWords(command.text);
      const assignments = words.filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word));
      if (words.slice(-2).join(' ') === 'npm start' && assignments.length > 0) {
        return Object.fromEntries(
          assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
        );
      }
    }
  }
  throw new Error('README.md has no `VAR=value … npm start` line for the examples');
}

beforeAll(async () => {
  ports = { api: await freePort(), bus: await freePort(), sandbox: await freePort() };
  const documented = documentedStartEnvironment();
  expect(documented.SANDBOX_PORT).toBe(String(DOCUMENTED_PORTS.sandbox));
  stack = startNpm({
    ...documented,
    OPS_PORT: String(ports.api),
    EVENTS_PORT: String(ports.bus),
    SANDBOX_PORT: String(ports.sandbox),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  const started = stack;
  await eventually(async () => {
    if (started.child.exitCode !== null) throw new Error(`npm start exited early:\n${started.output()}`);
    return started.output().includes('ops API ready on') ? true : undefined;
  }, 60_000);

  // curl, as written in the examples, also reports its HTTP status on stderr, where no pipe reads it.
  shimDir = mkdtempSync(join(tmpdir(), 'doc-examples-'));
  payoutsHome = mkdtempSync(join(tmpdir(), 'doc-examples-home-'));
  const realCurl = (await shell('command -v curl')).stdout.trim();
  expect(realCurl, 'curl must be installed to run the documentation examples').not.toBe('');
  writeFileSync(
    join(shimDir, 'curl'),
    `#!/bin/sh\nexec ${realCurl} -w '%{stderr}\\nDOC_HTTP_STATUS=%{http_code}\\n' "$@"\n`,
  );
  chmodSync(join(shimDir, 'curl'), 0o755);
  awsInstalled = (await shell('command -v aws')).exitCode === 0;
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    bin?: Record<string, string>;
  };
  expect(manifest.bin?.payouts).toBe(CLI_BIN);
}, 90_000);

afterAll(async () => {
  const child = stack?.child;
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((done) => child.once('exit', done));
    // Ctrl-C, as a user stops it; should it not stop, its process group is ended by its id.
    process.kill(-child.pid, 'SIGINT');
    const stopped = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((done) => setTimeout(() => done(false), 20_000).unref()),
    ]);
    if (!stopped) process.kill(-child.pid, 'SIGKILL');
  }
  if (shimDir) rmSync(shimDir, { recursive: true, force: true });
  if (payoutsHome) rmSync(payoutsHome, { recursive: true, force: true });
});

function shell(script: string, env: NodeJS.ProcessEnv = process.env): Promise<Answer> {
  return new Promise((done) => {
    execFile(
      'bash',
      ['-c', `set -o pipefail\n${script}`],
      { cwd: root, env, timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const statuses = [...stderr.matchAll(/DOC_HTTP_STATUS=(\d{3})/g)].map((match) => Number(match[1]));
        const httpStatus = statuses.at(-1);
        done({
          exitCode: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr: stderr.replace(/\n?DOC_HTTP_STATUS=\d{3}\n?/g, '\n').trim(),
          ...(httpStatus !== undefined && { httpStatus }),
        });
      },
    );
  });
}

/** The documented default ports replaced by the ones this run uses. */
function localised(text: string): string {
  let result = text;
  for (const [name, port] of Object.entries(DOCUMENTED_PORTS)) {
    const actual = ports[name as keyof typeof DOCUMENTED_PORTS];
    result = result.replace(new RegExp(`(127\\.0\\.0\\.1|localhost):${port}\\b`, 'g'), `127.0.0.1:${actual}`);
  }
  return result;
}

/** `npx payouts` through npx the first time, then the file its bin names (see the header). */
function cliRewritten(script: string): string {
  if (!/\bnpx payouts\b/.test(script)) return script;
  const rewritten = npxResolved ? script.replace(/\bnpx payouts\b/g, `node ${CLI_BIN}`) : script;
  npxResolved = true;
  return rewritten;
}

/** A run block touches only this machine: no URL elsewhere, no AWS call without a local endpoint. */
function refusalOf(text: string): string | undefined {
  for (const [url] of text.matchAll(/https?:\/\/[^\s'"/]+/g)) {
    if (!/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(url)) {
      return `${url}: a run example calls only this machine (mark the block # aws-only)`;
    }
  }
  const tools = simpleCommands(text).map(
    (words) => words.find((word) => !/^[A-Z_][A-Z0-9_]*=/.test(word)) ?? '',
  );
  for (const tool of tools) {
    if (!['curl', 'npx', 'aws', 'jq', 'echo', ''].includes(tool)) {
      return `${tool}: a run example calls curl, npx payouts, aws, jq or echo (mark the block # long-running or # aws-only)`;
    }
  }
  if (/\bnpx\s+(?!payouts\b)/.test(text)) return 'npx: only `npx payouts` runs here';
  if (/(^|\s)aws\s/.test(text) && !/--endpoint-url\s+\S*(127\.0\.0\.1|localhost|\$BUS)/.test(text)) {
    return 'aws: a run example names a local --endpoint-url (mark the block # aws-only)';
  }
  return undefined;
}

/** `aws events put-events --endpoint-url URL --entries '[…]'` as the PutEvents request the CLI would send. */
function putEventsWithCurl(text: string): string {
  const words = shellWords(text);
  const endpoint = words[words.indexOf('--endpoint-url') + 1];
  const entries = words[words.indexOf('--entries') + 1];
  if (!(words[1] === 'events' && words[2] === 'put-events' && endpoint && entries)) {
    throw new Error(`without the AWS CLI only events put-events --endpoint-url --entries can run: ${text}`);
  }
  const body = JSON.stringify({ Entries: JSON.parse(entries) }).replaceAll("'", "'\\''");
  return `curl -s -X POST ${endpoint} -H 'content-type: application/x-amz-json-1.1' -H 'X-Amz-Target: AWSEvents.PutEvents' -d '${body}'`;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Runs one command and says what is wrong with its answer, or undefined when it is what the docs say. */
async function runOnce(
  command: DocCommand,
  script: string,
  env: NodeJS.ProcessEnv,
  captures: Map<string, string>,
): Promise<string | undefined> {
  const answer = await shell(script, env);
  const shown = `stdout: ${answer.stdout.slice(0, 1500)}\nstderr: ${answer.stderr.slice(0, 1500)}`;
  const isCurl = answer.httpStatus !== undefined;
  if (command.status !== undefined && !isCurl) return `states HTTP ${command.status} but ran no curl`;
  if (isCurl) {
    const status = answer.httpStatus as number;
    const expected = command.status;
    if (expected === undefined ? status < 200 || status > 299 : status !== expected) {
      return `answered HTTP ${status}, expected ${expected ?? '2xx'}\n${shown}`;
    }
    if (answer.exitCode !== 0) return `exited ${answer.exitCode}\n${shown}`;
  } else if (answer.exitCode !== (command.exit ?? 0)) {
    return `exited ${answer.exitCode}, expected ${command.exit ?? 0}\n${shown}`;
  }
  const body = parsedJson(answer.stdout.trim());
  for (const { path, value } of command.assertions) {
    const actual = valueAt(body, path);
    if (JSON.stringify(actual) !== JSON.stringify(value)) {
      return `${path} is ${JSON.stringify(actual)}, the comment says ${JSON.stringify(value)}\n${shown}`;
    }
  }
  const found = new Map<string, string>();
  for (const { name, path } of command.captures) {
    const value = valueAt(body, path);
    if (typeof value !== 'string' && typeof value !== 'number') {
      return `<${name}> = ${path}: the answer has nothing there\n${shown}`;
    }
    found.set(name, String(value));
  }
  const succeeded = isCurl ? (answer.httpStatus as number) < 300 : answer.exitCode === 0;
  const id = valueAt(body, '.id');
  if (succeeded && typeof id === 'string' && !found.has('id')) captures.set('id', id);
  for (const [name, value] of found) captures.set(name, value);
  return undefined;
}

async function runExamplesOf(file: string): Promise<number> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${shimDir}:${process.env.PATH}`,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_REGION: 'us-east-1',
    AWS_PAGER: '',
    PAYOUTS_HOME: payoutsHome,
  };
  for (const name of [
    'API',
    'BUS',
    'SANDBOX',
    'PAYOUTS_API_URL',
    'PAYOUTS_PRINCIPAL',
    'LOCAL_TRUST_PRINCIPAL_HEADER',
    // The operators' tokens the pages capture (ALICE_TOKEN="$(…)"), should this process have any of its own.
    'ALICE_TOKEN',
    'BOB_TOKEN',
    'CAROL_TOKEN',
    'VIEWER_TOKEN',
  ])
    delete env[name];
  const captures = new Map<string, string>();
  let ran = 0;
  for (const block of readDocBlocks(file).filter((b) => b.mode === BlockMode.Run)) {
    for (const command of block.commands) {
      const problems = commandProblems(command);
      expect(problems, `${command.where}: ${command.text}`).toEqual([]);
      const assignment = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(command.text);
      if (assignment) {
        env[assignment[1] as string] = localised(shellWords(assignment[2] as string)[0] ?? '');
        continue;
      }
      const captured = /^([A-Z_][A-Z0-9_]*)="\$\((.+)\)"$/.exec(command.text);
      if (captured) {
        const inner = localised(captured[2] as string);
        expect(refusalOf(inner), `${command.where}: ${command.text}`).toBeUndefined();
        const printed = await shell(cliRewritten(inner), env);
        expect(printed.exitCode, `${command.where}: ${command.text}\n${printed.stderr}`).toBe(0);
        env[captured[1] as string] = printed.stdout.trim();
        continue;
      }
      const missing = placeholdersOf(command.text).filter((name) => !captures.has(name));
      expect(missing, `${command.where}: no earlier example captured <${missing.join('>, <')}>`).toEqual([]);
      let script = localised(command.text.replace(/<([a-z][\w-]*)>/g, (_, name) => captures.get(name) ?? ''));
      const refusal = refusalOf(script);
      expect(refusal, `${command.where}: ${command.text}`).toBeUndefined();
      script = cliRewritten(script);
      if (/^aws\s/.test(script) && !awsInstalled) {
        script = putEventsWithCurl(script.replace(/\$BUS\b/g, env.BUS ?? ''));
      }
      const attempt = () => runOnce(command, script, env, captures);
      const problem = command.eventually
        ? await eventually(async () => ((await attempt()) === undefined ? '' : undefined), 20_000, 250).catch(
            async () => attempt(),
          )
        : await attempt();
      expect(problem || undefined, `${command.where}: ${command.text}\n${problem}`).toBeUndefined();
      ran++;
    }
  }
  return ran;
}

describe('the documentation examples, run against npm start', () => {
  for (const file of documentationFiles()) {
    it(`${file}: every command example answers as its comment says`, async () => {
      await runExamplesOf(file);
    }, 120_000);
  }

  it('runs the CLI of docs/operations.md against it end to end', () => {
    const cli = readDocBlocks('docs/operations.md')
      .filter((block) => block.mode === BlockMode.Run)
      .flatMap((block) => block.commands)
      .filter((command) => /^npx payouts\b/.test(command.text));
    const text = cli.map((command) => `${command.text} # ${command.comment}`).join('\n');
    for (const needed of [/ list\b/, / get\b/, / approve .*--yes/, /--json/, /# exit [1-9]/]) {
      expect(text, `docs/operations.md runs no CLI example matching ${needed}`).toMatch(needed);
    }
  });
});
