import { describe, expect, it } from 'vitest';
import {
  parseStageConfig,
  reconciliationEnvironment,
  settlementEnvironment,
} from '../../infra/config/stage-config.js';
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
