import { appendFileSync } from 'node:fs';
import type { AwsCallObserver } from '../shared/aws-call-observer.js';
import { servingFunction } from './function-attribution.js';

/** One line of the record: the call, and the function it ran as (`null`: local tooling, no function). */
export interface RecordedAwsCall {
  readonly functionName: string | null;
  readonly client: string;
  readonly command: string;
  readonly input: unknown;
}

/**
 * `npm start` with RECORD_AWS_CALLS_TO set: every AWS call the local composition makes is appended to that
 * file as one JSON line, with the function that would make it in AWS (`servedBy`), so a test can check each
 * against that function's role after the run (the IAM proof, docs/iam-proof.md). Local mode only: Lambda
 * never records.
 *
 * @example runtimeFromProcessEnv({ awsCalls: awsCallRecorder('/tmp/calls.jsonl') });
 */
export function awsCallRecorder(file: string): { functionName: string; observer: AwsCallObserver } {
  return {
    functionName: 'unattributed',
    observer: (call) => {
      const line: RecordedAwsCall = {
        functionName: servingFunction() ?? null,
        client: call.client,
        command: call.command,
        input: call.input,
      };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    },
  };
}
