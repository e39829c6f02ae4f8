import { type CliIo, runCli } from '../../lib/cli/commands.js';

export interface CapturedCliRun {
  readonly status: number;
  readonly out: string;
  readonly err: string;
  /** The questions the CLI asked, in order. */
  readonly questions: readonly string[];
  // Parsed as the test reads it (any: each test knows the answer it asked for).
  readonly json: () => any;
}

/**
 * Runs the CLI in this process as a person at a terminal would, capturing what it prints. Its sessions live in
 * `home`; `answers` are the person's replies to its questions (no, once they run out); no AWS credentials or
 * stack unless given.
 */
export async function runCliCaptured(
  argv: string[],
  options: {
    readonly home: string;
    readonly env?: Record<string, string>;
    readonly stdin?: string;
    readonly answers?: boolean[];
    readonly credentials?: CliIo['credentials'];
    readonly askSecret?: CliIo['askSecret'];
  },
): Promise<CapturedCliRun> {
  let out = '';
  let err = '';
  const questions: string[] = [];
  const answers = [...(options.answers ?? [])];
  const io: CliIo = {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    env: { PAYOUTS_HOME: options.home, ...options.env },
    readStdin: () => options.stdin ?? '',
    credentials:
      options.credentials ??
      (() => async () => {
        throw new Error('no AWS credentials in this test');
      }),
    confirm: async (question) => {
      questions.push(question);
      return answers.shift() ?? false;
    },
    ...(options.askSecret && { askSecret: options.askSecret }),
    stackApiUrl: async (stack) => {
      throw new Error(`no stack ${stack} here`);
    },
  };
  const status = await runCli(argv, io);
  return { status, out, err, questions, json: () => JSON.parse(out) };
}
