import { errorKind } from '../shared/errors.js';

/** The settlement environment variables are inconsistent or malformed. */
export class SettlementConfigurationError extends /* @__PURE__ */ errorKind(
  'SettlementConfigurationError',
  'CONFIGURATION_INVALID',
) {}

/** Instant settlement is not configured in this deployment (no destination account). */
export class SettlementNotConfiguredError extends /* @__PURE__ */ errorKind(
  'SettlementNotConfiguredError',
  'SETTLEMENT_NOT_CONFIGURED',
) {
  constructor() {
    super('instant settlement is not configured: set the SETTLEMENT_DESTINATION_* variables');
  }
}
