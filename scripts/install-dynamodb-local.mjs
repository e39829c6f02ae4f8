// Installs DynamoDB Local (AWS's own engine) into the git-ignored .cache folder.
// The jar ships inside the npm package amplify-dynamodb-simulator; installing that package as a
// dependency would pull ~270 MB of unrelated Amplify packages, so only its emulator folder is extracted.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const PACKAGE = 'amplify-dynamodb-simulator@2.9.30';
const root = resolve(import.meta.dirname, '..');
const target = join(root, '.cache', 'dynamodb-local');

if (existsSync(join(target, 'DynamoDBLocal.jar'))) {
  console.log(`DynamoDB Local already installed in ${target}`);
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'ddb-local-'));
try {
  execFileSync('npm', ['pack', PACKAGE, '--pack-destination', work, '--silent'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${PACKAGE} produced no tarball`);
  execFileSync('tar', ['-xzf', join(work, tarball), '-C', work, 'package/emulator']);
  mkdirSync(join(root, '.cache'), { recursive: true });
  rmSync(target, { recursive: true, force: true });
  renameSync(join(work, 'package', 'emulator'), target);
  console.log(`DynamoDB Local installed in ${target}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
