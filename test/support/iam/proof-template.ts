import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { CfnTemplate } from './template-resolver.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const CACHE_DIR = join(ROOT, '.cache', 'iam-proof');

/** The synthesized `dev` template and the logical ids of what the proof maps local names onto. */
export interface ProofTemplate {
  readonly template: CfnTemplate;
  /** Handler name (`api`) -> its function's logical id. */
  readonly functions: Readonly<Record<string, string>>;
  readonly table: string;
  readonly bus: string;
  readonly tokenSecret: string;
  readonly pinSecret: string;
  /** The submission queue's logical id, with `submit-payouts` deployed. */
  readonly submissionQueue?: string;
  /** The operators' user pool's logical id, with the ops API deployed. */
  readonly userPool?: string;
}

/**
 * What the template is built from: every source file the stack imports (found by esbuild, so a change to a
 * `lib/` file the stack reads, like the table design, counts), cdk.json, and which handler files exist.
 */
async function infraSourcesHash(): Promise<string> {
  const { metafile } = await build({
    entryPoints: [join(ROOT, 'infra', 'stacks', 'payouts-stack.ts')],
    bundle: true,
    write: false,
    metafile: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
  });
  const hash = createHash('sha256');
  for (const input of Object.keys(metafile.inputs).sort()) {
    hash.update(input).update(readFileSync(join(ROOT, input)));
  }
  hash.update(readFileSync(join(ROOT, 'cdk.json')));
  hash.update(readdirSync(join(ROOT, 'functions')).sort().join(','));
  return hash.digest('hex').slice(0, 16);
}

/** Synthesizes the `dev` stack (CDK is imported only here: a cache hit never loads it). */
async function synthesize(): Promise<ProofTemplate> {
  const [{ synthStack }, { Stack }] = await Promise.all([
    import('../../infra/support/synth.js'),
    import('aws-cdk-lib'),
  ]);
  const { stack, template } = synthStack('dev');
  const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
    Stack.of(stack).getLogicalId(construct.node.defaultChild as never);
  return {
    template: template.toJSON() as CfnTemplate,
    functions: Object.fromEntries([...stack.functions].map(([name, fn]) => [name, logicalId(fn.function)])),
    table: logicalId(stack.data.table),
    bus: logicalId(stack.events.bus),
    tokenSecret: logicalId(stack.data.providerTokenSecret),
    pinSecret: logicalId(stack.data.providerPinSecret),
    ...(stack.submissionQueue && { submissionQueue: logicalId(stack.submissionQueue) }),
    ...(stack.operators && { userPool: logicalId(stack.operators.userPool) }),
  };
}

/**
 * The proof's template, synthesized once per change of the infrastructure sources and kept in
 * `.cache/iam-proof/` (the test run's global setup fills it, so test files only read it).
 */
export async function proofTemplate(): Promise<ProofTemplate> {
  const file = join(CACHE_DIR, `template-${await infraSourcesHash()}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ProofTemplate;
  } catch {
    const synthesized = await synthesize();
    mkdirSync(CACHE_DIR, { recursive: true });
    // Written aside and renamed: a file reading it at the same time sees all of it or none.
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(synthesized));
    renameSync(partial, file);
    return synthesized;
  }
}
