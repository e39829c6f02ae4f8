/**
 * The operators' CLI: `npm run ops -- <command>`. Signs requests to the ops API in AWS with SigV4 (your AWS
 * credentials), or names a principal on the local stack. `npm run ops -- --help` lists the commands.
 */
import { readFileSync } from 'node:fs';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { runCli } from '../lib/cli/commands.js';

const status = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  readStdin: () => readFileSync(0, 'utf8'),
  credentials: () => defaultProvider(),
});
process.exitCode = status;
