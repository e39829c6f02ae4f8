import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEEP_HEALTH_FAILED_METRIC, healthPartsOf, runHealthCanary } from '../../lib/jobs/health-canary.js';
import type { MetricsSink } from '../../lib/payouts/engine/context.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { createRuntime, type Runtime } from '../../lib/runtime/runtime.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { CapturingLogger } from '../../lib/shared/logger.js';
import { createTestTable } from '../support/dynamodb.js';
import { iamChecked } from '../support/iam/checked-calls.js';

/** Every metric point written, as CloudWatch would receive it from EMF. */
class CapturingMetrics implements MetricsSink {
  readonly points: { name: string; value: number; dimensions: Record<string, string> }[] = [];
  count(name: string, value = 1, dimensions: Record<string, string> = {}) {
    this.points.push({ name, value, dimensions });
  }
  timing() {}
}

/** The canary's view: the alarm's point (no dimension) and one point per check. */
function canaryPoints(metrics: CapturingMetrics) {
  const points = metrics.points.filter((point) => point.name === DEEP_HEALTH_FAILED_METRIC);
  return {
    overall: points.filter((point) => !point.dimensions.check).map((point) => point.value),
    byCheck: Object.fromEntries(
      points.filter((point) => point.dimensions.check).map((point) => [point.dimensions.check, point.value]),
    ),
  };
}

const WRONG_TOKEN = 'wrong-token-NEVER-LOG-77';
let sandbox: Sandbox;
let table: Awaited<ReturnType<typeof createTestTable>>;
const runtimes: Runtime[] = [];

/** The canary's runtime as the function builds it, against DynamoDB Local and the sandbox. */
function canaryRuntime(token: string, logger: CapturingLogger, metrics: CapturingMetrics): Runtime {
  const runtime = createRuntime(
    {
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
      PROVIDER_BASE_URL: sandbox.url,
      PROVIDER_TOKEN: token,
      PROVIDER_PIN: sandbox.pin,
    },
    { logger, metrics, awsCalls: iamChecked('health-canary') },
  );
  runtimes.push(runtime);
  return runtime;
}

beforeAll(async () => {
  table = await createTestTable('canary');
  sandbox = await startSandbox();
});

afterAll(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  await sandbox.close();
  table.client.destroy();
});

describe('health canary (functions/health-canary.ts)', () => {
  it('writes DeepHealthFailed 0, overall and for each check, when the table and the provider answer', async () => {
    const logger = new CapturingLogger();
    const metrics = new CapturingMetrics();
    const runtime = canaryRuntime(sandbox.token, logger, metrics);
    const health = await runHealthCanary(
      healthPartsOf(runtime),
      payoutEngineOf(runtime).ctx.metrics,
      runtime.logger,
    );
    expect(health.status).toBe('ok');
    expect(canaryPoints(metrics)).toEqual({ overall: [0], byCheck: { table: 0, provider: 0 } });
    expect(logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('writes DeepHealthFailed 1 naming the provider check when the token is refused, and never logs the token', async () => {
    const logger = new CapturingLogger();
    const metrics = new CapturingMetrics();
    const runtime = canaryRuntime(WRONG_TOKEN, logger, metrics);
    const health = await runHealthCanary(
      healthPartsOf(runtime),
      payoutEngineOf(runtime).ctx.metrics,
      runtime.logger,
    );
    expect(health.status).toBe('failed');
    expect(canaryPoints(metrics)).toEqual({ overall: [1], byCheck: { table: 0, provider: 1 } });
    const failure = logger.entries.find((entry) => entry.message === 'deep health check failed');
    expect(failure?.level).toBe('error');
    expect(failure?.fields).toEqual({ failed: { provider: expect.stringContaining('refuses the token') } });
    expect(JSON.stringify(logger.entries)).not.toContain(WRONG_TOKEN);
    expect(JSON.stringify(health)).not.toContain(WRONG_TOKEN);
  });

  it('writes DeepHealthFailed 1 naming the provider when it does not answer before the deadline, rather than no metric', async () => {
    // The provider answers after 2 s (and its GET would then be retried); the check's deadline is 100 ms. In
    // Lambda the deadline is DEEP_HEALTH_DEADLINE_MS, within the function's timeout (handler-limits.test.ts).
    sandbox.injectFault({ path: '/settlement', method: 'GET', fault: 'latency', latencyMs: 2_000 });
    const logger = new CapturingLogger();
    const metrics = new CapturingMetrics();
    const runtime = canaryRuntime(sandbox.token, logger, metrics);
    const started = Date.now();
    const health = await runHealthCanary(
      healthPartsOf(runtime),
      payoutEngineOf(runtime).ctx.metrics,
      runtime.logger,
      {
        deadlineMs: 100,
      },
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(health.checks.provider).toEqual({ status: 'failed', detail: expect.stringContaining('deadline') });
    // The table's answer is not this test's subject (under a loaded machine it may miss 100 ms too).
    const points = canaryPoints(metrics);
    expect(points.overall).toEqual([1]);
    expect(points.byCheck.provider).toBe(1);
  });
});
