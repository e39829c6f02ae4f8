import type { PayoutLedger } from '../payouts/index.js';
import {
  CredentialsError,
  type ProviderClient,
  ProviderError,
  ProviderRejectedError,
} from '../provider/index.js';
import { DeadlineExceededError, withinDeadline } from '../shared/deadline.js';

/** One dependency's state: `ok`, or `failed` with what an operator should look at (never a secret). */
export type CheckResult = { readonly status: 'ok' } | { readonly status: 'failed'; readonly detail: string };

export interface DeepHealth {
  readonly status: 'ok' | 'failed';
  readonly checks: {
    /** The table answers a consistent read (reachable, and this function may read it). */
    readonly table: CheckResult;
    /** The provider's credentials can be read, and the provider accepts the token on one read call. */
    readonly provider: CheckResult;
  };
}

/**
 * How long each check may take before it is reported failed. The provider's GET retries alone may take longer
 * (three attempts of 30 s); the canary cut off by its 30 s timeout would write no metric, and `GET /health` would
 * outlast API Gateway's 30 s. With this deadline a hung dependency is named in time
 * (test/infra/handler-limits.test.ts).
 */
export const DEEP_HEALTH_DEADLINE_MS = 20_000;

/**
 * The deep health check of a runtime's dependencies: a read of the controls item and one provider read call
 * (the newest settlement), run at once. It answers what failed, so a wrong token shows here instead of as
 * payouts quietly waiting in `pending`. `GET /health?deep=true` answers it; the health canary runs it on a
 * schedule (lib/jobs/health-canary.ts).
 */
export async function deepHealth(
  ctx: {
    payouts: Pick<PayoutLedger, 'controls'>;
    provider: Pick<ProviderClient, 'settlements'>;
  },
  options: { deadlineMs?: number } = {},
): Promise<DeepHealth> {
  const deadlineMs = options.deadlineMs ?? DEEP_HEALTH_DEADLINE_MS;
  const [table, provider] = await Promise.all([
    check(
      () => ctx.payouts.controls(),
      (error) => `the table could not be read: ${nameOf(error)}`,
      deadlineMs,
    ),
    check(
      (signal) => ctx.provider.settlements.list({ perPage: 1 }, { signal }),
      (error) => {
        if (error instanceof CredentialsError)
          return `the provider credentials could not be read: ${error.message}`;
        if (error instanceof ProviderRejectedError && (error.status === 401 || error.status === 403)) {
          return `the provider refuses the token (HTTP ${error.status}): check the token in the secret`;
        }
        if (error instanceof ProviderError) return `the provider could not be asked: ${error.code}`;
        return `the provider check failed: ${nameOf(error)}`;
      },
      deadlineMs,
    ),
  ]);
  const status = table.status === 'ok' && provider.status === 'ok' ? 'ok' : 'failed';
  return { status, checks: { table, provider } };
}

async function check(
  run: (signal: AbortSignal) => Promise<unknown>,
  describe: (error: unknown) => string,
  deadlineMs: number,
): Promise<CheckResult> {
  try {
    // withinDeadline races the check as well as handing it the signal: reading the provider's credentials
    // (Secrets Manager) and the table are not abortable, and a check that hangs must still answer `failed` in time.
    await withinDeadline(deadlineMs, run);
    return { status: 'ok' };
  } catch (error) {
    if (error instanceof DeadlineExceededError) {
      return { status: 'failed', detail: 'no answer before the check’s deadline' };
    }
    return { status: 'failed', detail: describe(error) };
  }
}

/** The error's name and code only: its message may quote a request (and so a secret) or an internal address. */
function nameOf(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  const code = 'code' in error && typeof error.code === 'string' ? ` (${error.code})` : '';
  return `${error.name}${code}`;
}
