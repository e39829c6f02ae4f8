/**
 * The one configurable fee table of the sandbox (CONTRACT.md "Charges").
 * All amounts are integer kobo; VAT is in basis points and rounded half up to the kobo.
 */
export interface FeeTier {
  /** Inclusive upper bound of the tier in kobo; null for the last, open tier. */
  readonly upToKobo: number | null;
  readonly feeKobo: number;
}

export interface FeeTable {
  readonly walletTransferKobo: number;
  readonly walletCreditKobo: number;
  readonly walletDebitKobo: number;
  readonly childDebitKobo: number;
  /** `debitCharges` of a child bank transfer. */
  readonly childBankDebitKobo: number;
  /** Interbank fee tiers of instant payouts and child bank transfers, before VAT. */
  readonly bankTransferTiers: readonly FeeTier[];
  readonly vatBasisPoints: number;
}

export const DEFAULT_FEES: FeeTable = {
  walletTransferKobo: 0,
  walletCreditKobo: 0,
  walletDebitKobo: 0,
  childDebitKobo: 0,
  childBankDebitKobo: 0,
  bankTransferTiers: [
    { upToKobo: 5_000_00, feeKobo: 10_00 },
    { upToKobo: 50_000_00, feeKobo: 25_00 },
    { upToKobo: null, feeKobo: 50_00 },
  ],
  vatBasisPoints: 750,
};

/** VAT on a fee, rounded half up to the kobo. */
export function vatOn(feeKobo: number, table: FeeTable): number {
  return Math.floor((feeKobo * table.vatBasisPoints + 5_000) / 10_000);
}

/** Interbank fee plus VAT for a bank transfer of `amountKobo`; e.g. 5,000.00 -> 10.75. */
export function bankTransferCharges(
  amountKobo: number,
  table: FeeTable,
): { feeKobo: number; vatKobo: number } {
  const tier = table.bankTransferTiers.find((t) => t.upToKobo === null || amountKobo <= t.upToKobo);
  const feeKobo = tier?.feeKobo ?? 0;
  return { feeKobo, vatKobo: vatOn(feeKobo, table) };
}

/** Merges a partial fee table over the defaults. */
export function feeTable(overrides: Partial<FeeTable> = {}): FeeTable {
  return { ...DEFAULT_FEES, ...overrides };
}
