/** Shapes of the sandbox-only admin answers (`/__sandbox/fixtures`, `/__sandbox/ledger`, `/__sandbox/stats`). */
import { toNaira } from '../money.js';
import { BANKS } from './banks.js';
import type { SandboxState, WalletKind } from './state.js';

/** Ids tests need to drive the sandbox (`GET /__sandbox/fixtures`). */
export interface SandboxFixtures {
  readonly merchantId: string;
  readonly merchantWalletId: string;
  readonly stores: readonly { id: string; walletId: string }[];
  readonly childAccounts: readonly { id: string; walletId: string }[];
  readonly bulkPayoutItems: readonly { id: string; bulkPayoutId: string; isValid: boolean }[];
  readonly virtualAccounts: readonly { customerReference: string }[];
  readonly paymentLinkPayments: readonly { reference: string }[];
  readonly paymentLinkTransactions: readonly { id: string; amountPaid: number }[];
  /** Known bank codes, e.g. `'058'`. */
  readonly bankCodes: readonly string[];
  readonly banks: readonly { code: string; name: string }[];
}

export interface LedgerWallet {
  readonly id: string;
  readonly kind: WalletKind;
  /** Major units (naira). */
  readonly balance: number;
}

export interface LedgerEntry {
  readonly transactionId: string;
  readonly path: string;
  readonly amount: number;
  readonly charges: number;
  readonly narration: string;
  readonly metadata: Record<string, unknown>;
  readonly createdAt: string;
}

/** Every wallet and every committed money-moving operation (`GET /__sandbox/ledger`). */
export interface SandboxLedger {
  readonly wallets: readonly LedgerWallet[];
  readonly operations: readonly LedgerEntry[];
}

export interface SandboxStats {
  /** Provider requests received per path (faulted ones included), since start or the last reset. */
  readonly requests: Readonly<Record<string, number>>;
  /** Requests a `rate-limit` fault answered with 429 (they are counted in `requests` too). */
  readonly rateLimited: number;
}

export function fixturesOf(state: SandboxState): SandboxFixtures {
  return {
    merchantId: state.merchant.id,
    merchantWalletId: state.mainWalletId,
    stores: [...state.stores.values()].map((s) => ({ id: s.id, walletId: s.walletId })),
    childAccounts: [...state.childAccounts.values()].map((c) => ({ id: c.id, walletId: c.walletId })),
    bulkPayoutItems: [...state.bulkItems.values()].map((i) => ({
      id: i.id,
      bulkPayoutId: i.bulkPayoutId,
      isValid: i.isValid,
    })),
    virtualAccounts: [...state.virtualAccounts.keys()].map((customerReference) => ({ customerReference })),
    paymentLinkPayments: [...state.paymentStatuses.keys()].map((reference) => ({ reference })),
    paymentLinkTransactions: state.paymentLinkTransactions.map((t) => ({
      id: String(t.id),
      amountPaid: Number(t.amountPaid),
    })),
    bankCodes: Object.keys(BANKS),
    banks: Object.entries(BANKS).map(([code, name]) => ({ code, name })),
  };
}

export function ledgerOf(state: SandboxState): SandboxLedger {
  return {
    wallets: [...state.wallets.values()].map((w) => ({
      id: w.id,
      kind: w.kind,
      balance: toNaira(w.balanceKobo),
    })),
    operations: state.operations.map((o) => ({
      transactionId: o.transactionId,
      path: o.path,
      amount: toNaira(o.amountKobo),
      charges: toNaira(o.chargesKobo),
      narration: o.narration,
      metadata: o.metadata,
      createdAt: o.createdAt.toISOString(),
    })),
  };
}
