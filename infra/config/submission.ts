/**
 * Numbers of the submission fan-out shared by the stack and its local stand-in (`npm start`, the benchmark),
 * kept free of CDK imports so local tooling can read them without loading aws-cdk-lib.
 */

/**
 * The `submit-payouts` worker's timeout. A batch runs at once: each payout's read, claim, slot reservation,
 * wait for its slot, provider call and recording, all started in the first moments of the invocation; its
 * worst case (every DynamoDB call and the provider call to its deadline) must fit with margin, and the worker
 * starts none with less than that left (`WORKER_STOP_STARTING_BEFORE_DEADLINE_MS`). A correction-job row has
 * more DynamoDB calls (173 s at worst, started only with 210 s left: `ROW_STOP_STARTING_BEFORE_DEADLINE_MS`), which sets the timeout.
 * test/infra/handler-limits.test.ts checks all of them.
 */
export const SUBMIT_WORKER_TIMEOUT_SECONDS = 240;

/** AWS's guidance: a queue's visibility timeout at least six times its consumer's timeout. */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/** The queue's name locally (CloudFormation names the deployed one; a FIFO queue's name ends in `.fifo`). */
export const SUBMISSION_QUEUE_NAME = 'payout-submissions.fifo';

/** How often the sweeper runs (its EventBridge schedule in `infra/handlers.ts`). */
export const SWEEP_TICK_SECONDS = 60;

/**
 * The provider latency a stage is sized for (the L = 200 ms), used where a stage sets no provider rate
 * limit: its workers then drain at most `maxConcurrency x batchSize / L`.
 */
export const SIZING_LATENCY_MS = 200;

/** SQS FIFO drops a repeated deduplication id within this window (5 minutes). */
export const FIFO_DEDUPLICATION_WINDOW_SECONDS = 300;
