import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { HANDLERS } from '../../infra/handlers.js';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';
import { proofOf } from './iam/checked-calls.js';
import type { ExercisedRequest } from './iam/iam-proof.js';
import { proofTemplate } from './iam/proof-template.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

let dynamoDb: DynamoDbLocal | undefined;
let runDir: string | undefined;

/**
 * One DynamoDB Local for the whole run; every test file creates its own table in it. The IAM proof's template
 * is synthesized here at most once per run (and not at all while the infrastructure is unchanged).
 */
export async function setup(project: TestProject): Promise<void> {
  const [started] = await Promise.all([startDynamoDbLocal(), proofTemplate()]);
  dynamoDb = started;
  project.provide('dynamoDbEndpoint', dynamoDb.endpoint);
  const cacheDir = resolve(import.meta.dirname, '..', '..', '.cache', 'iam-proof');
  mkdirSync(cacheDir, { recursive: true });
  runDir = mkdtempSync(join(cacheDir, 'run-'));
  project.provide('iamProofRunDir', runDir);
}

export async function teardown(): Promise<void> {
  await dynamoDb?.stop();
  if (runDir) {
    await reportUnusedGrants(runDir);
    rmSync(runDir, { recursive: true, force: true });
  }
}

/**
 * The run's least-privilege report: for each function, the granted (action, resource) pairs that no call of
 * any suite (the IAM proof's scenarios and the instrumented end-to-end suites) and no platform call used.
 * Informational: the IAM proof's own test fails on an unexercised grant `infra/handlers.ts` does not explain.
 */
async function reportUnusedGrants(dir: string): Promise<void> {
  const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
  if (files.length === 0) return;
  const proof = proofOf(await proofTemplate());
  for (const file of files) {
    proof.exercised.push(...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as ExercisedRequest[]));
  }
  await proof.checkPlatform();
  const functions = [...proof.functionIds.keys()];
  const report = proof.unusedGrants(functions);
  const lines = functions.map((name) => {
    const unused = report[name] ?? [];
    const justified = (HANDLERS as Record<string, { unexercisedGrants?: Record<string, string> }>)[name]
      ?.unexercisedGrants;
    return `  ${name}: ${
      unused.length === 0
        ? 'every grant exercised'
        : unused
            .map((grant) => `${grant}${justified?.[grant.split(' on ')[0] ?? ''] ? ' (justified)' : ''}`)
            .join('; ')
    }`;
  });
  for (const [role, unused] of Object.entries(proof.unusedRoleGrants())) {
    lines.push(`  ${role} (schedule role): ${unused.length === 0 ? 'every grant used' : unused.join('; ')}`);
  }
  const callers = new Set(proof.exercised.map((request) => request.functionName)).size;
  console.log(
    `\nIAM proof, whole run: ${proof.exercised.length} requests by ${callers} functions from ${files.length} files; granted, never exercised:\n${lines.join('\n')}\n`,
  );
}
