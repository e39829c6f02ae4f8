import { PayoutAutomationError } from '../shared/errors.js';

/** The settlement environment variables are inconsistent or malformed. */
export class SettlementConfigurationError extends PayoutAutomationError {
  override readonly name = 'SettlementConfigurationError';
  override readonly code = 'CONFIGURATION_INVALID';
}

/** Instant settlement is not configured in this deployment (no destination account). */
export class SettlementNotConfiguredError extends PayoutAutomationError {
  override readonly name = 'SettlementNotConfiguredError';
  override readonly code = 'SETTLEMENT_NOT_CONFIGURED';
  constructor() {
    super('instant settlement is not configured: set the SETTLEMENT_DESTINATION_* variables');
  }
}
