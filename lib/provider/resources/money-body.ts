/** What every money-moving body carries besides the fields that say from where and to whom. */
export interface MoneyMovement {
  readonly amount: number;
  readonly narration: string;
  readonly metadata?: Record<string, unknown>;
}

/** The bank account a bank transfer pays. */
export interface BankAccount {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
}

/**
 * The documented body of a money-moving request: the given routing fields, then amount, narration and metadata,
 * nothing else from the params. Its method's definition checks the amount (ProviderResource, `amount`).
 */
export function moneyBody(params: MoneyMovement, routing: Record<string, string>): Record<string, unknown> {
  return { ...routing, amount: params.amount, narration: params.narration, metadata: params.metadata ?? {} };
}

export function bankAccountOf(params: BankAccount): Record<string, string> {
  return { bankCode: params.bankCode, accountNumber: params.accountNumber, accountName: params.accountName };
}
