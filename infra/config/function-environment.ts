import { reconciliationEnvironment, type StageConfig, settlementEnvironment } from './stage-config.js';
import { submissionEnvironment } from './submission-sizing.js';

/**
 * The environment the stack gives every function that has the table (infra/stacks/payouts-stack.ts): the stage's
 * limits and policies as the variables lib/runtime/runtime-config.ts and lib/settlement/config.ts read. The
 * constructs add what they bind (TABLE_NAME, the secrets, the queue). The cold-start benchmark runs the handlers
 * with it too, so they are timed with the settings they deploy with.
 *
 * @example functionEnvironment('dev', stageConfigOf('dev')).DAILY_CAP_KOBO // '500000000'
 */
export function functionEnvironment(stage: string, config: StageConfig): Record<string, string> {
  return {
    PROVIDER_BASE_URL: config.providerBaseUrl,
    MAX_PAYOUT_KOBO: String(config.maxPayoutKobo),
    DAILY_CAP_KOBO: String(config.dailyCapKobo),
    APPROVAL_THRESHOLD_KOBO: String(config.approvalThresholdKobo),
    ...(config.secondApprovalThresholdKobo !== undefined && {
      SECOND_APPROVAL_THRESHOLD_KOBO: String(config.secondApprovalThresholdKobo),
    }),
    ...(config.approverLimits !== undefined && { APPROVER_LIMITS: JSON.stringify(config.approverLimits) }),
    ...(config.mainWalletId !== undefined && { MAIN_WALLET_ID: config.mainWalletId }),
    STATEMENT_TIME: config.statementTime,
    STATEMENT_TIME_ZONE: config.statementTimeZone,
    OPS_SESSION_NAMED_ROLES: config.opsSessionNamedRoles.join(','),
    ...submissionEnvironment(config),
    ...settlementEnvironment(config),
    ...reconciliationEnvironment(config),
    STAGE: stage,
  };
}
