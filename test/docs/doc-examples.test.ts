import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StageConfigSchema } from '../../infra/config/stage-config.js';
import { RuntimeEnvSchema } from '../../lib/runtime/runtime-config.js';
import { SettlementEnvSchema } from '../../lib/settlement/config.js';
import { commandProblems, syntaxProblem } from './support/doc-checks.js';
import { documentationFiles, parseDocBlocks, readDocBlocks, valueAt } from './support/doc-examples.js';

/**
 * The documentation as a product: README.md stays a front door, every link lands, and every command example
 * that cannot run here (AWS-only, long-running) is still one the shell parses and whose tools, commands, flags
 * and paths exist. test/docs/doc-examples.e2e.test.ts runs the others against `npm start`.
 */
const root = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('reading examples out of Markdown', () => {
  it('splits a block into commands as the shell does, with each command’s expectations', () => {
    const [block] = parseDocBlocks(
      'x.md',
      [
        'intro',
        '```sh',
        '# a comment line',
        "curl -s -X POST $API/payouts -H 'content-type: application/json' \\",
        '  -d \'{"narration":"a # is not a comment here",',
        '       "amount":1}\'   # 201: .status == "pending_approval", <payout> = .id',
        'npx payouts payouts list --json   # exit 1: refused',
        'curl -s "$API/dead-letters"   # eventually 200; <letter> = .items[0].id',
        '```',
      ].join('\n'),
    );
    expect(block?.mode).toBe('run');
    expect(block?.commands.map((command) => command.where)).toEqual(['x.md:4', 'x.md:7', 'x.md:8']);
    expect(block?.commands[0]).toMatchObject({
      status: 201,
      eventually: false,
      assertions: [{ path: '.status', value: 'pending_approval' }],
      captures: [{ name: 'payout', path: '.id' }],
    });
    expect(block?.commands[0]?.text).toContain('a # is not a comment here');
    expect(block?.commands[1]).toMatchObject({ exit: 1 });
    expect(block?.commands[2]).toMatchObject({
      status: 200,
      eventually: true,
      captures: [{ name: 'letter', path: '.items[0].id' }],
    });
    expect(valueAt({ items: [{ id: 'a' }] }, '.items[0].id')).toBe('a');
  });

  it('marks blocks that are only checked', () => {
    const blocks = parseDocBlocks(
      'x.md',
      '```sh\n# aws-only\nnpx cdk deploy\n```\n```bash\n# long-running\nnpm start\n```',
    );
    expect(blocks.map((block) => block.mode)).toEqual(['aws-only', 'long-running']);
  });
});

describe('checking examples that cannot run here', () => {
  it('refuses a tool called as it does not exist', () => {
    expect(commandProblems({ text: "aws events put-entries --entries '[]'" })).toEqual([
      'aws events put-entries: not an AWS CLI operation the documentation may use',
    ]);
    expect(commandProblems({ text: 'npx payouts payouts approve' })).toEqual([
      'npx payouts: payouts approve takes <id>',
    ]);
    expect(commandProblems({ text: 'npx payouts payouts list --colour' })[0]).toMatch(/colour/);
    expect(commandProblems({ text: 'npx payouts payouts approve', exit: 2 })).toEqual([]);
    expect(commandProblems({ text: 'npx payouts payouts list', exit: 2 })).toEqual([
      'npx payouts: states exit 2 (a usage error) but is a valid invocation',
    ]);
    expect(commandProblems({ text: 'npm run deploy-everything' })).toEqual([
      'npm run deploy-everything: package.json has no such script',
    ]);
    expect(commandProblems({ text: 'BENCH_TURBO=1 npm run bench' })).toEqual([
      'BENCH_TURBO: no code reads this variable',
    ]);
    expect(commandProblems({ text: 'npx vitest run test/nowhere' })).toEqual([
      'npx vitest test/nowhere: no such path',
    ]);
    expect(syntaxProblem({ source: "curl -d '{" })).toBeDefined();
  });

  for (const file of documentationFiles()) {
    it(`${file}: every example parses, and every tool, command, flag and path it names exists`, () => {
      for (const block of readDocBlocks(file)) {
        expect(syntaxProblem(block), `${file}:${block.line}`).toBeUndefined();
        for (const command of block.commands) {
          expect(commandProblems(command), `${command.where}: ${command.text}`).toEqual([]);
        }
      }
    });
  }
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, blanks as dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!inFence && heading) anchors.add(anchorOf(heading[1] as string));
  }
  return anchors;
}

describe('the documentation as a whole', () => {
  it('keeps README.md a front door: at most 15 KB', () => {
    expect(statSync(join(root, 'README.md')).size).toBeLessThanOrEqual(15 * 1024);
  });

  for (const file of documentationFiles()) {
    it(`${file}: every relative link lands on a file, and every #anchor on a heading`, () => {
      const markdown = read(file).replace(/```[\s\S]*?```/g, '');
      for (const [, target = ''] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const linked = path === '' ? file : normalize(join(dirname(file), path));
        expect(existsSync(join(root, linked)), `${file}: link ${target}`).toBe(true);
        if (anchor && linked.endsWith('.md')) {
          expect(anchorsOf(read(linked)).has(anchor), `${file}: link ${target} has no such heading`).toBe(
            true,
          );
        }
      }
    });
  }

  it('docs/configuration.md names every variable and stage field the code reads', () => {
    const doc = read('docs/configuration.md');
    const startVariables = [
      ...(
        /StartEnvSchema = z\.object\(\{([\s\S]*?)\n\}\);/.exec(read('scripts/start.ts'))?.[1] ?? ''
      ).matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm),
    ].map((match) => match[1] as string);
    expect(startVariables).toContain('OPS_PORT');
    const names = [
      ...startVariables,
      ...Object.keys(RuntimeEnvSchema.shape),
      ...Object.keys(SettlementEnvSchema._zod.innerType.shape),
      ...Object.keys(StageConfigSchema.shape),
    ];
    const missing = names.filter((name) => !doc.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  it('README.md: every path in its map of folders exists', () => {
    const readme = read('README.md');
    const paths = [...readme.matchAll(/`((?:lib|functions|infra|test|docs|bench|scripts)\/[\w./-]*)`/g)].map(
      (match) => match[1] as string,
    );
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) expect(existsSync(join(root, path)), `README.md names ${path}`).toBe(true);
  });

  it('README.md: its map of folders names every folder of lib/ and of the repository', () => {
    const readme = read('README.md');
    const folders = [
      ...readdirSync(join(root, 'lib'), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `lib/${entry.name}/`),
      ...['functions/', 'infra/', 'scripts/', 'bench/', 'test/', 'docs/'],
    ];
    expect(folders.filter((folder) => !readme.includes(`\`${folder}\``))).toEqual([]);
  });
});
