import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { withRuntime } from '../../lib/runtime/lambda-handler.js';
import { runtimeFromProcessEnv } from '../../lib/runtime/runtime.js';
import { lambdaLogger } from '../../lib/shared/lambda-logger.js';
import { withLogContext } from '../../lib/shared/log-context.js';
import { CapturingLogger } from '../../lib/shared/logger.js';

const invocation = (requestId: string) =>
  ({ awsRequestId: requestId, functionName: 'payouts-dev-submit-payouts' }) as Context;

describe('the log context', () => {
  it('every line a handler logs carries its request id, its cold start and its function name', async () => {
    const logger = new CapturingLogger();
    // The container's runtime, built once with the capturing logger (no AWS is called).
    process.env.TABLE_NAME ??= 'payouts-log-context-test';
    process.env.PROVIDER_BASE_URL ??= 'http://127.0.0.1:9';
    process.env.DYNAMODB_ENDPOINT ??= 'http://127.0.0.1:9';
    runtimeFromProcessEnv({ logger });
    const handler = withRuntime(async (_event: unknown, runtime) => {
      runtime.logger.info('started');
      await Promise.resolve();
      runtime.logger.info('finished', { handled: 1 });
      return 'done';
    });
    await handler({}, invocation('req-1'));
    await handler({}, invocation('req-2'));
    expect(logger.entries.map((entry) => entry.fields)).toEqual([
      { function_request_id: 'req-1', cold_start: true, function_name: 'payouts-dev-submit-payouts' },
      {
        function_request_id: 'req-1',
        cold_start: true,
        function_name: 'payouts-dev-submit-payouts',
        handled: 1,
      },
      { function_request_id: 'req-2', cold_start: false, function_name: 'payouts-dev-submit-payouts' },
      {
        function_request_id: 'req-2',
        cold_start: false,
        function_name: 'payouts-dev-submit-payouts',
        handled: 1,
      },
    ]);
  });

  it("the Lambda logger's line holds the context's fields, a payout's inside the invocation's, and none outside", () => {
    const lines: string[] = [];
    const logger = lambdaLogger({ service: 'payouts', write: (line) => lines.push(line), env: {} });
    withLogContext({ function_request_id: 'req-1', cold_start: false }, () =>
      withLogContext({ payoutId: 'p-1', correlationId: 'c-1' }, () => logger.info('submitted')),
    );
    logger.info('outside');
    const [inside, outside] = lines.map((line) => JSON.parse(line));
    expect(inside).toMatchObject({
      message: 'submitted',
      function_request_id: 'req-1',
      cold_start: false,
      payoutId: 'p-1',
      correlationId: 'c-1',
    });
    expect(outside).not.toHaveProperty('function_request_id');
  });
});
