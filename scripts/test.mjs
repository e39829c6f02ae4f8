// `npm test`: the type check and the lint run beside the suite, at low priority, instead of before it.
// The suite leaves part of the two cores idle (tests waiting on DynamoDB Local, the sandbox and the clocks of
// npm start), and the type check's minute of CPU fits there; `nice` keeps it from taking the tests' time.
// Fails when any of the three fails; each one's output is printed whole, the checks' after the suite's.
import { spawn } from 'node:child_process';

const run = (command, args, { quiet = false } = {}) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code, signal) => resolve({ ok: code === 0, code: code ?? signal, output }));
  });

const checks = Promise.all([
  run('nice', ['-n', '15', 'npx', 'tsc', '--noEmit', '-p', 'tsconfig.json'], { quiet: true }),
  // The console runs in a browser: its own compiler settings (DOM, no Node types).
  run('nice', ['-n', '15', 'npx', 'tsc', '--noEmit', '-p', 'lib/console/tsconfig.json'], { quiet: true }),
  run('nice', ['-n', '15', 'npx', 'biome', 'check', '.'], { quiet: true }),
]);
const suite = await run('npx', ['vitest', 'run', ...process.argv.slice(2)]);
const [typecheck, consoleTypecheck, lint] = await checks;

for (const [name, result] of [
  ['typecheck (tsc --noEmit)', typecheck],
  ['console typecheck (tsc -p lib/console)', consoleTypecheck],
  ['lint (biome check .)', lint],
]) {
  console.log(`\n${name}: ${result.ok ? 'passed' : `failed (${result.code})`}`);
  if (!result.ok || result.output.trim() !== '') process.stdout.write(result.output);
}
process.exit(typecheck.ok && consoleTypecheck.ok && lint.ok && suite.ok ? 0 : 1);
