import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueDispatch } from '../../lib/jobs/scheduled.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { stageConfigOf, startLocalSubmissionWorkers } from '../../lib/local/submission-workers.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { type Runtime, runtimeFromProcessEnv } from '../../lib/runtime/runtime.js';
import { recurrencesOf, refundsOf } from '../../lib/runtime/services.js';
import { submissionsOf } from '../../lib/runtime/submissions.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { silentLogger } from '../../lib/shared/logger.js';
import { createTestTable } from '../support/dynamodb.js';
import { bankTransfer, command } from '../support/engine-harness.js';
import { iamChecked, sharedProof } from '../support/iam/checked-calls.js';

/**
 * The shipped path on one machine: the sweeper's tick enqueues through the SQS client to the queue's stand-in,
 * which invokes the real `functions/submit-payouts.ts` handler module (its runtime built from process.env, as
 * in Lambda) with the dev stage's batch size, concurrency and visibility timeout.
 */
let sandbox: Sandbox;
let runtime: Runtime;
let closeTable: () => void;
const clock = { now: Date.now() };
let crashAfterHandler = false;
let invocations = 0;
let workers: Awaited<ReturnType<typeof startLocalSubmissionWorkers>>;

beforeAll(async () => {
  const table = await createTestTable('queue-e2e');
  closeTable = () => table.client.destroy();
  sandbox = await startSandbox({});
  const worker = (await import('../../functions/submit-payouts.js')).handler;
  workers = await startLocalSubmissionWorkers({
    config: stageConfigOf('dev'),
    loadWorker: async () => worker,
    logger: silentLogger,
    pollIntervalMs: 60_000,
    overrides: {
      now: () => clock.now,
      consumer: async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
        invocations++;
        const answer = await worker(event, context);
        // A crash after the provider acted and the outcome was written, before Lambda deleted the messages.
        if (crashAfterHandler) throw new Error('simulated: the invocation died before answering');
        return answer;
      },
    },
  });
  delete process.env.PROVIDER_SECRET_ID;
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    PROVIDER_BASE_URL: sandbox.url,
    PROVIDER_TOKEN: sandbox.token,
    PROVIDER_PIN: sandbox.pin,
    ...workers.environment,
  });
  // The runtime the test and the worker module share (process.env, as in one container); each call is checked
  // against the role of the function it runs as: the sweeper's tick, the worker's deliveries.
  runtime = runtimeFromProcessEnv({ awsCalls: iamChecked() });
});

afterAll(async () => {
  await workers.stop();
  await runtime.close();
  await sandbox.close();
  closeTable();
});

const providerCalls = () => sandbox.stats().requests['/settlement/instant/payout'] ?? 0;

async function tick() {
  const submissions = submissionsOf(runtime);
  if (!submissions) throw new Error('the runtime has no submission queue');
  return servedBy('sweep-due-payouts', () =>
    runDueDispatch(
      {
        engine: payoutSweeper(payoutEngineOf(runtime)),
        recurrences: recurrencesOf(runtime),
        refunds: refundsOf(runtime),
        submissions,
      },
      120_000,
    ),
  );
}

describe('submission through the local queue and the deployed worker', () => {
  it('pays due payouts once each, in batches of the configured size', async () => {
    const created = [];
    for (let index = 0; index < 25; index++) {
      created.push(
        (await payoutEngineOf(runtime).create(command(bankTransfer(20_000 + index), `e2e-${index}`))).payout,
      );
    }
    const before = invocations;
    const report = await tick();
    expect(report.payouts).toMatchObject({ enqueued: 25, leftOver: false });
    await workers.queue.idle();
    for (const payout of created) {
      expect((await payoutEngineOf(runtime).get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    }
    expect(providerCalls()).toBe(25);
    // 25 messages at a batch size of 10: three invocations at least.
    expect(invocations - before).toBeGreaterThanOrEqual(
      Math.ceil(25 / stageConfigOf('dev').submission.batchSize),
    );
    expect(workers.queue.stats()).toMatchObject({ visible: 0, inFlight: 0, deadLetters: 0 });
    // The IAM proof saw both functions' calls: the sweeper's SendMessage, the workers' claims.
    const seen = (await sharedProof()).exercised;
    const actionsOf = (name: string) =>
      new Set(seen.filter((request) => request.functionName === name).map((request) => request.action));
    expect(actionsOf('sweep-due-payouts')).toContain('sqs:SendMessage');
    expect(actionsOf('submit-payouts')).toContain('dynamodb:UpdateItem');
  });

  it('sends nothing again when a crashed invocation is redelivered after the visibility timeout', async () => {
    const { payout } = await payoutEngineOf(runtime).create(command(bankTransfer(31_000), 'e2e-crash'));
    const calls = providerCalls();
    crashAfterHandler = true;
    await tick();
    await workers.queue.idle();
    crashAfterHandler = false;
    expect(providerCalls()).toBe(calls + 1);
    expect(workers.queue.stats().inFlight).toBe(1);

    clock.now += workers.queue.options.visibilityTimeoutMs;
    workers.queue.pump();
    await workers.queue.idle();
    expect(workers.queue.stats()).toMatchObject({ visible: 0, inFlight: 0, deadLetters: 0 });
    expect(providerCalls()).toBe(calls + 1);
    expect((await payoutEngineOf(runtime).get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
  });
});
