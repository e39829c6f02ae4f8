/**
 * Reads the command examples of the documentation: every ```sh or ```bash block of README.md and docs/*.md,
 * split into commands the way a shell splits them, each with what its trailing comment says to expect.
 * The conventions are described in test/docs/doc-examples.e2e.test.ts, which runs them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** How a block is used: run against `npm start`, or only checked (it needs AWS, or runs for minutes). */
export const BlockMode = { Run: 'run', AwsOnly: 'aws-only', LongRunning: 'long-running' } as const;
export type BlockMode = (typeof BlockMode)[keyof typeof BlockMode];

export interface DocCapture {
  /** The placeholder it fills, without the angle brackets. */
  readonly name: string;
  /** A path into the JSON answer: `.id`, `.items[0].id`. */
  readonly path: string;
}

export interface DocAssertion {
  readonly path: string;
  /** The JSON value the path must hold. */
  readonly value: unknown;
}

export interface DocCommand {
  /** `README.md:42`: where the command starts. */
  readonly where: string;
  /** The command as written, continuation lines included, without its trailing comment. */
  readonly text: string;
  /** The trailing comment of its last line, without `#`; empty when none. */
  readonly comment: string;
  /** An HTTP status the comment states (`# 403: …`). */
  readonly status?: number;
  /** An exit status the comment states (`# exit 3: …`). */
  readonly exit?: number;
  /** `# eventually …`: the answer may take a moment (delivered after answering); retried until it holds. */
  readonly eventually: boolean;
  readonly captures: readonly DocCapture[];
  readonly assertions: readonly DocAssertion[];
}

export interface DocBlock {
  readonly file: string;
  /** Line of the opening fence, 1-based. */
  readonly line: number;
  readonly mode: BlockMode;
  /** The block's text as written. */
  readonly source: string;
  readonly commands: readonly DocCommand[];
}

const root = join(import.meta.dirname, '..', '..', '..');

/** The documentation files whose examples are run, in the order they run: README.md, then docs/ by name. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join('docs', name));
  return ['README.md', ...docs];
}

export function readDocBlocks(file: string): DocBlock[] {
  return parseDocBlocks(relative(root, join(root, file)), readFileSync(join(root, file), 'utf8'));
}

/** The sh/bash blocks of one Markdown text. */
export function parseDocBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)```(sh|bash)\s*$/.exec(lines[index] ?? '');
    if (!open) continue;
    const indent = open[1] ?? '';
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^\s*```\s*$/.test(lines[index] ?? ''); index++) {
      body.push((lines[index] ?? '').slice(indent.length));
    }
    const source = body.join('\n');
    const marker = /^#\s*(aws-only|long-running)\b/.exec(body.find((line) => line.trim() !== '') ?? '');
    blocks.push({
      file,
      line: start + 1,
      mode: (marker?.[1] as BlockMode | undefined) ?? BlockMode.Run,
      source,
      commands: splitCommands(source).map(({ text, comment, line }) =>
        describeCommand(`${file}:${start + 2 + line}`, text, comment),
      ),
    });
  }
  return blocks;
}

/**
 * Splits shell text into commands as the shell does: a newline ends a command unless it is quoted or escaped
 * with `\`; `#` after a blank, outside quotes, starts a comment. Comment-only lines belong to no command.
 */
export function splitCommands(source: string): { text: string; comment: string; line: number }[] {
  const commands: { text: string; comment: string; line: number }[] = [];
  let text = '';
  let comment = '';
  let startLine = 0;
  let line = 0;
  let quote: "'" | '"' | undefined;
  for (let at = 0; at < source.length; at++) {
    const char = source[at] as string;
    if (quote) {
      text += char;
      if (char === '\\' && quote === '"') text += source[++at] ?? '';
      else if (char === quote) quote = undefined;
      if (char === '\n') line++;
      continue;
    }
    if (char === '\\' && source[at + 1] === '\n') {
      text += '\\\n';
      at++;
      line++;
      continue;
    }
    if (char === '#' && (text === '' || /\s$/.test(text))) {
      const end = source.indexOf('\n', at);
      comment = source.slice(at + 1, end === -1 ? source.length : end).trim();
      at = (end === -1 ? source.length : end) - 1;
      continue;
    }
    if (char === '\n') {
      if (text.trim() !== '') commands.push({ text: text.trim(), comment, line: startLine });
      text = '';
      comment = '';
      line++;
      startLine = line;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    if (text === '' && /\s/.test(char)) continue;
    if (text === '') startLine = line;
    text += char;
  }
  if (text.trim() !== '') commands.push({ text: text.trim(), comment, line: startLine });
  return commands;
}

const STATUS = /^(?:eventually\s+)?(\d{3})\b/;
const EXIT = /^(?:eventually\s+)?exit\s+(\d+)\b/;
const CAPTURE = /<([a-z][\w-]*)>\s*=\s*(\.[\w.[\]]+)/g;
const ASSERTION = /(?:^|[\s,:;])(\.[\w.[\]]+)\s*==\s*("(?:[^"\\]|\\.)*"|[\w.-]+)/g;

function describeCommand(where: string, text: string, comment: string): DocCommand {
  const status = STATUS.exec(comment)?.[1];
  const exit = EXIT.exec(comment)?.[1];
  return {
    where,
    text,
    comment,
    ...(status !== undefined && { status: Number(status) }),
    ...(exit !== undefined && { exit: Number(exit) }),
    eventually: /^eventually\b/.test(comment),
    captures: [...comment.matchAll(CAPTURE)].map((match) => ({
      name: match[1] as string,
      path: match[2] as string,
    })),
    assertions: [...comment.matchAll(ASSERTION)].map((match) => ({
      path: match[1] as string,
      value: JSON.parse(match[2] as string),
    })),
  };
}

/** The value at a path like `.items[0].id`, or undefined. */
export function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const [, key, index] of path.matchAll(/\.([\w-]+)|\[(\d+)\]/g)) {
    if (current === null || typeof current !== 'object') return undefined;
    current =
      key !== undefined ? (current as Record<string, unknown>)[key] : (current as unknown[])[Number(index)];
  }
  return current;
}

/** `<name>` placeholders of a command (a redirection such as `< file` is not one: no blank inside). */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(/<([a-z][\w-]*)>/g)].map((match) => match[1] as string);
}

/**
 * The words of a simple command as the shell would pass them, for checks: quotes removed, `$VAR` and
 * `$(…)` left as written.
 */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let at = 0; at < text.length; at++) {
    const char = text[at] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && /["\\$`]/.test(text[at + 1] ?? ''))
        word = `${word ?? ''}${text[++at]}`;
      else word = `${word ?? ''}${char}`;
      continue;
    }
    if (char === '\\' && text[at + 1] === '\n') {
      at++;
      continue;
    }
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    word ??= '';
    if (char === "'" || char === '"') quote = char;
    else if (char === '\\') word += text[++at] ?? '';
    else word += char;
  }
  if (word !== undefined) words.push(word);
  return words;
}
