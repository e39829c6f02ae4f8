/** Base of every error the settlement module raises on purpose. */
export class SettlementError extends Error {
  override readonly name: string = 'SettlementError';
  readonly code: string = 'SETTLEMENT_ERROR';
}

/** The settlement environment variables are inconsistent or malformed. */
export class SettlementConfigurationError extends SettlementError {
  override readonly name = 'SettlementConfigurationError';
  override readonly code = 'CONFIGURATION_INVALID';
}

/** The provider lists no settlement with this id within the look-up bound. */
export class SettlementNotFoundError extends SettlementError {
  override readonly name = 'SettlementNotFoundError';
  override readonly code = 'SETTLEMENT_NOT_FOUND';
  constructor(
    readonly settlementId: string,
    detail?: string,
    options?: ErrorOptions,
  ) {
    super(detail ?? `the provider lists no settlement ${settlementId}`, options);
  }
}

/** Instant settlement is not configured in this deployment (no destination account). */
export class SettlementNotConfiguredError extends SettlementError {
  override readonly name = 'SettlementNotConfiguredError';
  override readonly code = 'SETTLEMENT_NOT_CONFIGURED';
  constructor() {
    super('instant settlement is not configured: set the SETTLEMENT_DESTINATION_* variables');
  }
}
