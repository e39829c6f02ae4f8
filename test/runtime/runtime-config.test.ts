import { describe, expect, it } from 'vitest';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { providerConnectionOf } from '../../lib/runtime/provider-connection.js';
import { createRuntime } from '../../lib/runtime/runtime.js';
import { ConfigurationError, parseRuntimeEnv } from '../../lib/runtime/runtime-config.js';

const local = {
  TABLE_NAME: 'payouts',
  PROVIDER_BASE_URL: 'http://127.0.0.1:4010',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
  PROVIDER_TOKEN: 'tok-NEVER-LOG-1',
  PROVIDER_PIN: 'pin-NEVER-LOG-2',
};

describe('runtime configuration', () => {
  it('accepts local mode with the token and PIN in the environment', () => {
    expect(parseRuntimeEnv(local).TABLE_NAME).toBe('payouts');
  });

  it('names the missing variable', () => {
    const { TABLE_NAME: _, ...rest } = local;
    expect(() => parseRuntimeEnv(rest)).toThrow(/TABLE_NAME/);
  });

  it('refuses a submission lease shorter than two provider calls, naming it', () => {
    expect(() => parseRuntimeEnv({ ...local, SUBMIT_LEASE_MS: '60000' })).toThrow(/SUBMIT_LEASE_MS/);
    expect(() =>
      parseRuntimeEnv({ ...local, SUBMIT_LEASE_MS: '60000', PROVIDER_TIMEOUT_MS: '20000' }),
    ).not.toThrow();
    expect(() => parseRuntimeEnv({ ...local, PROVIDER_TIMEOUT_MS: '90000' })).toThrow(/SUBMIT_LEASE_MS/);
  });

  it('reads the reconciliation settings, and refuses a watch window not longer than the grace period', async () => {
    const runtime = createRuntime({ ...local, MAX_ABSENT_ATTEMPTS: '3', WATCH_WINDOW_MS: '86400000' });
    expect(payoutEngineOf(runtime).ctx.config).toMatchObject({
      maxAbsentAttempts: 3,
      watchWindowMs: 86_400_000,
      reconcileGraceMs: 600_000,
    });
    await runtime.close();
    expect(() => parseRuntimeEnv({ ...local, MAX_ABSENT_ATTEMPTS: '0' })).toThrow(/MAX_ABSENT_ATTEMPTS/);
    expect(() =>
      parseRuntimeEnv({ ...local, RECONCILE_GRACE_MS: '86400000', WATCH_WINDOW_MS: '3600000' }),
    ).toThrow(/WATCH_WINDOW_MS/);
  });

  it('names a malformed limit', () => {
    expect(() => parseRuntimeEnv({ ...local, DAILY_CAP_KOBO: '12.5' })).toThrow(/DAILY_CAP_KOBO/);
  });

  it('refuses credentials from the environment inside Lambda, without echoing them', () => {
    const error = (() => {
      try {
        parseRuntimeEnv({ ...local, AWS_LAMBDA_FUNCTION_NAME: 'sweep' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String(error)).toMatch(/PROVIDER_TOKEN_SECRET_ID/);
    expect(String(error)).not.toContain('NEVER-LOG');
  });

  it('runs in AWS mode only inside Lambda, with the secret', () => {
    const { PROVIDER_TOKEN: _t, PROVIDER_PIN: _p, ...withoutCredentials } = local;
    const runtime = createRuntime({
      ...withoutCredentials,
      PROVIDER_TOKEN_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:1:secret:t',
      PROVIDER_PIN_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:1:secret:p',
      AWS_LAMBDA_FUNCTION_NAME: 'api',
      AWS_REGION: 'eu-west-1',
    });
    expect(runtime.mode).toBe('aws');
    const localRuntime = createRuntime(local);
    expect(localRuntime.mode).toBe('local');
    return Promise.all([runtime.close(), localRuntime.close()]);
  });

  it('builds a Lambda function without provider access (no secret) that records payouts but cannot reach the provider', async () => {
    const { PROVIDER_TOKEN: _t, PROVIDER_PIN: _p, ...withoutCredentials } = local;
    const runtime = createRuntime({
      ...withoutCredentials,
      AWS_LAMBDA_FUNCTION_NAME: 'api-recurrences',
      AWS_REGION: 'eu-west-1',
    });
    expect(runtime.payouts.ctx.config.maxInstructionKobo).toBeGreaterThan(0);
    expect(() => providerConnectionOf(runtime)).toThrow(ConfigurationError);
    expect(() => payoutEngineOf(runtime)).toThrow(/PROVIDER_TOKEN_SECRET_ID/);
    await runtime.close();
  });

  it('asks for the credentials only where the provider is called, naming them, in local mode too', async () => {
    const { PROVIDER_TOKEN: _t, ...withoutToken } = local;
    // The runtime builds (the table, the ledger): a function without provider access needs no credentials.
    const runtime = createRuntime(withoutToken);
    expect(() => providerConnectionOf(runtime)).toThrow(
      /PROVIDER_TOKEN_SECRET_ID.*PROVIDER_TOKEN and PROVIDER_PIN/,
    );
    await runtime.close();
  });
});
