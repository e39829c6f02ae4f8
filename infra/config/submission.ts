/**
 * Numbers of the submission fan-out shared by the stack and its local stand-in (`npm start`, the benchmark),
 * kept free of CDK imports so local tooling can read them without loading aws-cdk-lib.
 */

/**
 * The `submit-payouts` worker's timeout. A batch runs at once: each payout's read, claim, provider call (30 s
 * timeout) and recording start within the first seconds; the worker starts none in its last 40 s
 * (`WORKER_STOP_STARTING_BEFORE_DEADLINE_MS`). test/infra/handler-limits.test.ts checks the sum.
 */
export const SUBMIT_WORKER_TIMEOUT_SECONDS = 90;

/** AWS's guidance: a queue's visibility timeout at least six times its consumer's timeout. */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/** The queue's name locally (CloudFormation names the deployed one; a FIFO queue's name ends in `.fifo`). */
export const SUBMISSION_QUEUE_NAME = 'payout-submissions.fifo';
