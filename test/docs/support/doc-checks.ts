/**
 * Static checks of documentation commands, for the blocks that cannot run here (`# aws-only`,
 * `# long-running`) and as a first check of every other: the shell can parse them, and every tool they call is
 * called as it exists (an npm script of package.json, a command and flags of `npx payouts`, an AWS CLI
 * operation, a path of the repository, a variable the code reads).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { usageProblem } from '../../../lib/cli/commands.js';
import { type DocBlock, type DocCommand, shellWords } from './doc-examples.js';

const root = join(import.meta.dirname, '..', '..', '..');

/**
 * AWS CLI operations the documentation may use. An operation that is not a real one (`events put-entries`)
 * must not reach a reader; add one here only after checking it with `aws <service> <operation> help`.
 */
export const KNOWN_AWS_OPERATIONS: Readonly<Record<string, readonly string[]>> = {
  cloudformation: ['describe-stacks'],
  secretsmanager: ['put-secret-value'],
  events: ['put-events'],
  sns: ['subscribe'],
  logs: ['tail'],
  // Checked against the AWS CLI reference (awscli.amazonaws.com/v2/documentation/api/latest/reference/cognito-idp/).
  'cognito-idp': [
    'admin-create-user',
    'admin-add-user-to-group',
    'admin-disable-user',
    'initiate-auth',
    'respond-to-auth-challenge',
  ],
  'cognito-identity': ['get-id', 'get-credentials-for-identity'],
  // `aws iam attach-role-policy --role-name <role> --policy-arn <arn>` (IAM's AttachRolePolicy).
  iam: ['attach-role-policy'],
};

/** `npx` tools the documentation may call, with the subcommands that exist. */
const KNOWN_CDK_COMMANDS = ['synth', 'deploy', 'bootstrap', 'diff', 'destroy'];

let packageScripts: Record<string, string> | undefined;
function scripts(): Record<string, string> {
  packageScripts ??= JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<
    string,
    string
  >;
  return packageScripts;
}

let sourceText: string | undefined;
/** Every TypeScript and script source of the project, to check an environment variable is read somewhere. */
function projectSource(): string {
  if (sourceText === undefined) {
    const parts: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(join(root, dir))) {
        const path = join(dir, name);
        if (statSync(join(root, path)).isDirectory()) walk(path);
        else if (/\.(ts|mjs)$/.test(name)) parts.push(readFileSync(join(root, path), 'utf8'));
      }
    };
    for (const dir of ['lib', 'bench', 'scripts', 'infra', 'functions']) walk(dir);
    sourceText = parts.join('\n');
  }
  return sourceText;
}

/** The block as the shell would parse it (placeholders stand for a word), or the shell's complaint. */
export function syntaxProblem(block: Pick<DocBlock, 'source'>): string | undefined {
  const result = spawnSync('bash', ['-n'], {
    input: block.source.replace(/<([a-z][\w-]*)>/g, 'PLACEHOLDER_$1'),
    encoding: 'utf8',
  });
  return result.status === 0 ? undefined : result.stderr.trim();
}

/** The simple commands of a command line: split at pipes, `&&`, `||` and `;` outside quotes. */
export function simpleCommands(text: string): string[][] {
  const words = shellWords(text.replace(/([|;&]{1,2})(?=\s)/g, ' $1'));
  const commands: string[][] = [[]];
  for (const word of words) {
    if (['|', '||', '&&', ';'].includes(word)) commands.push([]);
    else commands[commands.length - 1]?.push(word);
  }
  return commands.filter((command) => command.length > 0);
}

/** What is wrong with how a command calls the project's tools, the AWS CLI or the repository; empty when nothing. */
export function commandProblems(
  command: Pick<DocCommand, 'text'> & Partial<Pick<DocCommand, 'exit'>>,
): string[] {
  const problems: string[] = [];
  for (const words of simpleCommands(command.text)) {
    let at = 0;
    for (; at < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[at] ?? ''); at++) {
      const name = (words[at] ?? '').split('=')[0] as string;
      // `ALICE_TOKEN="$(npx payouts … token …)"`: the reader's own variable; the command inside is checked.
      const substituted = /^[A-Z_][A-Z0-9_]*=\$\((.+)\)$/.exec(words[at] ?? '')?.[1];
      if (substituted !== undefined) {
        problems.push(...commandProblems({ text: substituted }));
        continue;
      }
      if (!['API', 'BUS', 'SANDBOX', 'PAYOUTS_API_URL', 'PAYOUTS_PRINCIPAL'].includes(name)) {
        if (!projectSource().includes(name)) problems.push(`${name}: no code reads this variable`);
      }
    }
    const [tool = '', first = '', second = '', ...rest] = words.slice(at);
    if (tool === 'npm') {
      if (first === 'run') {
        if (!(second in scripts())) problems.push(`npm run ${second}: package.json has no such script`);
      } else if (['start', 'test'].includes(first)) {
        if (!(first in scripts())) problems.push(`npm ${first}: package.json has no such script`);
      } else if (first !== 'ci') problems.push(`npm ${first}: not a command the documentation uses`);
    } else if (tool === 'npx') {
      if (first === 'payouts') {
        const problem = usageProblem([second, ...rest].filter((word) => word !== ''));
        // `# exit 2` shows a usage error on purpose: then it must be one.
        if (command.exit === 2) {
          if (!problem) problems.push('npx payouts: states exit 2 (a usage error) but is a valid invocation');
        } else if (problem) problems.push(`npx payouts: ${problem}`);
      } else if (first === 'cdk') {
        if (!KNOWN_CDK_COMMANDS.includes(second)) problems.push(`npx cdk ${second}: not a cdk command`);
      } else if (first === 'vitest') {
        for (const path of [second, ...rest].filter((word) => !word.startsWith('-') && word !== 'run')) {
          if (!existsSync(join(root, path))) problems.push(`npx vitest ${path}: no such path`);
        }
      } else problems.push(`npx ${first}: not a tool of this project`);
    }
  }
  // Anywhere in the line, inside a shell function or a command substitution too.
  for (const [, service = '', operation = ''] of command.text.matchAll(
    /(?:^|[\s;({|&])aws\s+([a-z0-9-]+)\s+([a-z0-9-]+)/g,
  )) {
    if (!KNOWN_AWS_OPERATIONS[service]?.includes(operation)) {
      problems.push(`aws ${service} ${operation}: not an AWS CLI operation the documentation may use`);
    }
  }
  return problems;
}
