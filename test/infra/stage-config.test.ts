import { describe, expect, it } from 'vitest';
import { functionEnvironment } from '../../infra/config/function-environment.js';
import {
  parseStageConfig,
  reconciliationEnvironment,
  settlementEnvironment,
} from '../../infra/config/stage-config.js';
import { createRuntime } from '../../lib/runtime/runtime.js';
import { parseRuntimeEnv } from '../../lib/runtime/runtime-config.js';
import { stageConfigFromCdkJson } from './support/synth.js';

const valid = {
  providerBaseUrl: 'https://api.provider.example',
  maxPayoutKobo: 500_000_000,
  dailyCapKobo: 5_000_000_000,
  approvalThresholdKobo: 100_000_000,
};

describe('stage configuration', () => {
  it('accepts the dev and prod stages of cdk.json', () => {
    expect(stageConfigFromCdkJson('dev').deletionProtection).toBe(false);
    expect(stageConfigFromCdkJson('prod').deletionProtection).toBe(true);
  });

  it('fills defaults for what a stage leaves out', () => {
    expect(parseStageConfig('qa', valid)).toMatchObject({
      logRetentionDays: 90,
      settlementPollMinutes: 15,
      deletionProtection: true,
      settlement: {},
    });
  });

  it('throws naming the field when a limit is not a positive whole number of kobo', () => {
    expect(() => parseStageConfig('qa', { ...valid, dailyCapKobo: 10.5 })).toThrow(/dailyCapKobo/);
  });

  it('throws when the provider URL is not https', () => {
    expect(() =>
      parseStageConfig('qa', { ...valid, providerBaseUrl: 'http://api.provider.example' }),
    ).toThrow(/providerBaseUrl/);
  });

  it('throws on an unknown field, so a typo in cdk.json cannot be ignored', () => {
    expect(() => parseStageConfig('qa', { ...valid, dailyCap: 1 })).toThrow(/dailyCap/);
  });

  it('throws when the approval threshold is above the largest payout', () => {
    expect(() => parseStageConfig('qa', { ...valid, approvalThresholdKobo: 600_000_000 })).toThrow(
      /approvalThresholdKobo/,
    );
  });

  it('leaves approver limits and the second approver off by default, and sets no variable for them', () => {
    const config = parseStageConfig('qa', valid);
    expect(config.secondApprovalThresholdKobo).toBeUndefined();
    expect(config.approverLimits).toBeUndefined();
    const env = functionEnvironment('qa', config);
    expect(env.SECOND_APPROVAL_THRESHOLD_KOBO).toBeUndefined();
    expect(env.APPROVER_LIMITS).toBeUndefined();
  });

  it('carries approver limits and the second-approval threshold to the engine the functions build', async () => {
    const config = parseStageConfig('qa', {
      ...valid,
      secondApprovalThresholdKobo: 300_000_000,
      approverLimits: { defaultKobo: 200_000_000, byApprover: { 'person/cognito:abc': 400_000_000 } },
    });
    const env = functionEnvironment('qa', config);
    expect(env).toMatchObject({
      SECOND_APPROVAL_THRESHOLD_KOBO: '300000000',
      APPROVER_LIMITS: '{"defaultKobo":200000000,"byApprover":{"person/cognito:abc":400000000}}',
    });
    const runtime = createRuntime({
      ...env,
      TABLE_NAME: 't',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
      PROVIDER_BASE_URL: 'http://127.0.0.1:1',
    });
    try {
      expect(runtime.payouts.ctx.config).toMatchObject({
        secondApprovalThresholdKobo: 300_000_000,
        approverLimits: { defaultKobo: 200_000_000, byApprover: { 'person/cognito:abc': 400_000_000 } },
      });
    } finally {
      await runtime.close();
    }
  });

  it('throws naming the field when the second-approval threshold is below the first, or a limit is not kobo', () => {
    expect(() => parseStageConfig('qa', { ...valid, secondApprovalThresholdKobo: 1_000 })).toThrow(
      /secondApprovalThresholdKobo/,
    );
    expect(() => parseStageConfig('qa', { ...valid, approverLimits: { defaultKobo: 0 } })).toThrow(
      /approverLimits\.defaultKobo/,
    );
    expect(() => parseStageConfig('qa', { ...valid, approverLimits: { byApprover: { bob: 1.5 } } })).toThrow(
      /approverLimits\.byApprover\.bob/,
    );
  });

  it('refuses a cold start whose APPROVER_LIMITS is not JSON of limits, naming the variable', () => {
    const base = {
      TABLE_NAME: 't',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
      PROVIDER_BASE_URL: 'http://127.0.0.1:1',
    };
    expect(() => parseRuntimeEnv({ ...base, APPROVER_LIMITS: 'bob=5' })).toThrow(
      /APPROVER_LIMITS: must be a JSON object/,
    );
    expect(() => parseRuntimeEnv({ ...base, OPS_API_ROLES: 'payouts-ci=requester' })).toThrow(
      /OPS_API_ROLES: must be a JSON object/,
    );
    expect(() => parseRuntimeEnv({ ...base, APPROVER_LIMITS: '{"bob":5}' })).toThrow(/APPROVER_LIMITS/);
    expect(() => parseRuntimeEnv({ ...base, SECOND_APPROVAL_THRESHOLD_KOBO: '-1' })).toThrow(
      /SECOND_APPROVAL_THRESHOLD_KOBO/,
    );
  });

  it('throws when a stage has no configuration', () => {
    expect(() => parseStageConfig('staging', undefined)).toThrow(/no configuration for stage "staging"/);
  });

  it('turns the reconciliation block into the environment the handlers read, and leaves unset ones to the engine', () => {
    const config = parseStageConfig('qa', {
      ...valid,
      reconciliation: { graceMs: 900_000, maxAbsentAttempts: 3 },
    });
    expect(reconciliationEnvironment(config)).toEqual({
      RECONCILE_GRACE_MS: '900000',
      MAX_ABSENT_ATTEMPTS: '3',
    });
    expect(reconciliationEnvironment(parseStageConfig('qa', valid))).toEqual({});
    // The stage's environment is a Lambda's: local mode would refuse a real provider URL.
    const env = parseRuntimeEnv({
      AWS_LAMBDA_FUNCTION_NAME: 'reconcile',
      TABLE_NAME: 't',
      PROVIDER_BASE_URL: 'https://api.provider.example',
      PROVIDER_TOKEN_SECRET_ID: 's',
      ...reconciliationEnvironment(config),
    });
    expect([env.RECONCILE_GRACE_MS, env.MAX_ABSENT_ATTEMPTS, env.WATCH_WINDOW_MS]).toEqual([
      900_000,
      3,
      undefined,
    ]);
  });

  it('throws when the watch window is not longer than the grace period', () => {
    expect(() =>
      parseStageConfig('qa', { ...valid, reconciliation: { graceMs: 3_600_000, watchWindowMs: 600_000 } }),
    ).toThrow(/reconciliation.watchWindowMs/);
    expect(() => parseStageConfig('qa', { ...valid, reconciliation: { maxAbsentAttempts: 0 } })).toThrow(
      /maxAbsentAttempts/,
    );
  });

  it('checks the settlement policy with the parser the handlers use', () => {
    expect(() => parseStageConfig('qa', { ...valid, settlement: { allowedHours: '8-18' } })).toThrow(
      /SETTLEMENT_ALLOWED_HOURS/,
    );
  });

  it('turns the settlement policy into the environment variables the handlers read', () => {
    const config = parseStageConfig('qa', {
      ...valid,
      settlement: {
        destination: { bankCode: '058', accountNumber: '0123456789', accountName: 'Demo Merchant Ltd' },
        minKobo: 100_000,
        categories: ['MERCHANT_SETTLEMENT'],
      },
    });
    expect(settlementEnvironment(config)).toEqual({
      SETTLEMENT_DESTINATION_BANK_CODE: '058',
      SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0123456789',
      SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd',
      SETTLEMENT_MIN_KOBO: '100000',
      SETTLEMENT_CATEGORIES: 'MERCHANT_SETTLEMENT',
    });
  });
});
