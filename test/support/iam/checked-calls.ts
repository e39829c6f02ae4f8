import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { SUBMISSION_QUEUE_NAME } from '../../../infra/config/submission.js';
import type { RecordedAwsCall } from '../../../lib/local/aws-call-recorder.js';
import { servingFunction } from '../../../lib/local/function-attribution.js';
import type { AwsCallObserver } from '../../../lib/shared/aws-call-observer.js';
import { type ExercisedRequest, IamDeniedError, IamProof } from './iam-proof.js';
import { type ProofTemplate, proofTemplate } from './proof-template.js';
import { StackPolicies } from './stack-policies.js';
import type { CfnTemplate } from './template-resolver.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each test file leaves the requests its functions made, for the run's unused-grant report. */
    iamProofRunDir: string;
  }
}

/** The runtime's name for calls no function makes: the test's own setup and reads, local tooling. */
export const UNATTRIBUTED = 'unattributed';

/**
 * The proof over a synthesized template. Every local table, bus and queue name maps onto the template's one
 * (the stack has one of each; tests use a table per file and the SQS stand-in's queue name).
 */
export function proofOf(source: ProofTemplate, template: CfnTemplate = source.template): IamProof {
  const policies = new StackPolicies(template);
  const tableName = policies.resolver.ref(source.table);
  const busName = policies.resolver.ref(source.bus);
  const userPool = source.userPool;
  const poolId = userPool === undefined ? undefined : policies.resolver.ref(userPool);
  return new IamProof(policies, new Map(Object.entries(source.functions)), {
    table: () => tableName,
    bus: () => busName,
    queue: (local) =>
      local === SUBMISSION_QUEUE_NAME && source.submissionQueue ? source.submissionQueue : local,
    secretKeys: policies.secretKeys,
    ...(poolId !== undefined && { userPool: () => poolId }),
  });
}

let shared: Promise<IamProof> | undefined;

/** This test file's proof, built on first use from the cached template. */
export function sharedProof(): Promise<IamProof> {
  shared ??= proofTemplate().then((source) => proofOf(source));
  return shared;
}

/** The proof if anything in this file used it. */
export function usedProof(): Promise<IamProof> | undefined {
  return shared;
}

/**
 * An observer for `createRuntime`'s `awsCalls` (and the SQS queue's): each call is checked, before it is sent,
 * against the role of the function serving it (`servedBy`, lib/local/function-attribution.ts), or else of
 * `functionName`; a call IAM would refuse fails as AWS would fail it. Calls of neither (UNATTRIBUTED) pass
 * unchecked.
 *
 * @example createRuntime(env, { awsCalls: iamChecked('api-payouts') });
 */
export function iamChecked(functionName: string = UNATTRIBUTED): {
  functionName: string;
  observer: AwsCallObserver;
} {
  return {
    functionName,
    observer: async (call) => {
      const servedBy = servingFunction() ?? call.functionName;
      if (servedBy === UNATTRIBUTED) return;
      await (await sharedProof()).check({ ...call, functionName: servedBy });
    },
  };
}

/** Leaves the requests a proof saw for the run's unused-grant report (test/support/global-setup.ts). */
export function recordExercised(exercised: readonly ExercisedRequest[], file: string): void {
  if (exercised.length === 0) return;
  const name = `${file.replace(/[^a-z0-9]+/gi, '-')}-${process.pid}-${Date.now()}.json`;
  writeFileSync(join(inject('iamProofRunDir'), name), JSON.stringify(exercised));
}

/** What the proof found in a file of calls recorded by `npm start` (RECORD_AWS_CALLS_TO). */
export interface RecordedCallsVerdict {
  /** Each refused call: function, call, action, resource, result. */
  readonly denials: string[];
  /** Calls per function that made them. */
  readonly callsByFunction: Record<string, number>;
  /** Commands made outside any function (local tooling: creating the table, the stream relay's look-up). */
  readonly unattributed: string[];
}

/**
 * Checks every call `npm start` recorded against the role of the function it ran as, as the in-process
 * suites do before each call; the proof's requests join the run's unused-grant report.
 */
export async function checkRecordedCalls(lines: readonly string[]): Promise<RecordedCallsVerdict> {
  const proof = await sharedProof();
  const denials: string[] = [];
  const callsByFunction: Record<string, number> = {};
  const unattributed = new Set<string>();
  for (const line of lines) {
    const call = JSON.parse(line) as RecordedAwsCall;
    if (call.functionName === null) {
      unattributed.add(call.command);
      continue;
    }
    callsByFunction[call.functionName] = (callsByFunction[call.functionName] ?? 0) + 1;
    try {
      await proof.check({ ...call, functionName: call.functionName });
    } catch (error) {
      if (!(error instanceof IamDeniedError)) throw error;
      denials.push(error.message);
    }
  }
  return { denials: [...new Set(denials)], callsByFunction, unattributed: [...unattributed].sort() };
}
