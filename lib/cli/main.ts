import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { runCli } from './commands.js';

/** The CLI with the real terminal, AWS credential chain and CloudFormation behind it. */
export async function main(argv: readonly string[]): Promise<number> {
  return runCli(argv, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    readStdin: () => readFileSync(0, 'utf8'),
    credentials: () => defaultProvider(),
    confirm: async (question) => {
      if (!process.stdin.isTTY) return false;
      const terminal = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return /^y(es)?$/i.test((await terminal.question(question)).trim());
      } finally {
        terminal.close();
      }
    },
    askSecret: async (question) => {
      if (!process.stdin.isTTY) return undefined;
      process.stderr.write(question);
      // The terminal echoes what is typed into a stream that drops it: the password never shows.
      const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
      const terminal = createInterface({ input: process.stdin, output: muted, terminal: true });
      try {
        return await terminal.question('');
      } finally {
        terminal.close();
        process.stderr.write('\n');
      }
    },
    stackApiUrl: async (stack, region) => {
      const client = new CloudFormationClient(region ? { region } : {});
      try {
        const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stack }));
        const url = Stacks?.[0]?.Outputs?.find((output) => output.OutputKey === 'OpsApiUrl')?.OutputValue;
        if (!url) throw new Error(`stack ${stack} has no OpsApiUrl output`);
        return url;
      } finally {
        client.destroy();
      }
    },
  });
}
