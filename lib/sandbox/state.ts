/**
 * The mutable world of the sandbox. Money is integer kobo everywhere in here; routes convert to major-unit
 * numbers only when they write JSON. Read-only seeded resources are kept in their wire form (`Wire*`).
 */
import type {
  ScheduledStatus,
  SettlementCategory,
  SettlementStatus,
  TransactionType,
  WalletCategory,
} from './contract.js';
import { ID_GROUP, uuidFor } from './ids.js';

export type WalletKind = 'merchant' | 'store' | 'child';
export type JsonObject = { [key: string]: unknown };

/** Bank coordinates of one side of a transfer. */
export interface BankParty {
  readonly bankCode: string;
  readonly bankName: string;
  readonly accountName: string;
  readonly accountNumber: string;
}

export interface Wallet extends BankParty {
  readonly id: string;
  readonly kind: WalletKind;
  balanceKobo: number;
}

export interface ChildAccount {
  readonly id: string;
  readonly name: string;
  readonly accountNumber: string;
  readonly walletId: string;
}

export interface Store {
  readonly id: string;
  readonly name: string;
  readonly code: string | null;
  readonly phoneNumber: string;
  readonly email: string | null;
  readonly website: string;
  readonly address: string;
  readonly walletId: string;
  readonly createdAt: Date;
  readonly agents: readonly {
    id: string;
    firstName: string;
    lastName: string;
    email: string;
    createdAt: Date;
  }[];
}

export interface WalletTransaction {
  readonly seq: number;
  readonly id: string;
  readonly walletId: string;
  readonly type: TransactionType;
  readonly category: WalletCategory;
  readonly amountKobo: number;
  readonly chargesKobo: number;
  readonly vatKobo: number;
  readonly reference: string;
  readonly sessionId: string | null;
  readonly description: string;
  readonly narration: string | undefined;
  readonly createdAt: Date;
  readonly originator: BankParty;
  readonly beneficiary: BankParty;
  /** True for instant payouts and child bank transfers: readable through GET /payout/details. */
  readonly isPayout: boolean;
  /** Extra fields of BANK_FUNDING records. */
  readonly funding?: {
    readonly userId: string;
    readonly channelCode: string;
    readonly transactionReference: string;
    readonly originatorBankVerificationNumber: string;
    readonly beneficiaryBankVerificationNumber: string;
  };
}

export interface Settlement {
  readonly seq: number;
  readonly id: string;
  readonly amountKobo: number;
  readonly chargesKobo: number;
  readonly status: SettlementStatus;
  readonly category: SettlementCategory;
  readonly createdAt: Date;
  readonly subaccount?: { readonly id: string; readonly name: string };
}

export interface ScheduledPayout {
  readonly seq: number;
  readonly id: string;
  readonly email: string | null;
  readonly amountKobo: number;
  readonly chargesKobo: number;
  readonly status: ScheduledStatus;
  readonly scheduleDate: Date;
  readonly transactionId: string | null;
  readonly accountNumber: string;
  readonly accountName: string | null;
  readonly bankCode: string;
  readonly bankName: string;
  readonly narration: string | null;
  readonly createdAt: Date;
}

export interface BulkPayoutItem {
  readonly id: string;
  readonly bulkPayoutId: string;
  amountKobo: number;
  accountName: string;
  accountNumber: string;
  bankCode: string;
  narration: string;
  phoneNumber: string;
  isValid: boolean;
  reason: string | null;
  readonly createdAt: Date;
}

export interface Refund {
  readonly id: string;
  readonly transactionId: string;
  readonly amountKobo: number;
  readonly customerNote: string;
  readonly merchantNote: string;
  readonly createdAt: Date;
}

/** One committed money-moving operation, as `GET /__sandbox/ledger` reports it. */
export interface LedgerOperation {
  readonly transactionId: string;
  readonly path: string;
  readonly amountKobo: number;
  readonly chargesKobo: number;
  readonly narration: string;
  readonly metadata: JsonObject;
  readonly createdAt: Date;
}

/** A wire-form record with a creation time to sort on. */
export interface WireRecord {
  readonly createdAt: string;
  readonly [key: string]: unknown;
}

export class SandboxState {
  readonly merchant = { id: uuidFor(ID_GROUP.merchant, 1), businessName: 'Sandbox Demo Merchant Ltd' };
  mainWalletId = '';
  readonly wallets = new Map<string, Wallet>();
  readonly childAccounts = new Map<string, ChildAccount>();
  readonly stores = new Map<string, Store>();
  readonly walletTransactions: WalletTransaction[] = [];
  readonly settlements: Settlement[] = [];
  readonly scheduledPayouts: ScheduledPayout[] = [];
  readonly bulkItems = new Map<string, BulkPayoutItem>();
  readonly refunds: Refund[] = [];
  readonly operations: LedgerOperation[] = [];
  readonly paymentLinkTransactions: WireRecord[] = [];
  readonly paymentLinks: WireRecord[] = [];
  readonly paymentStatuses = new Map<string, WireRecord>();
  readonly terminalUsages: WireRecord[] = [];
  readonly recurrentPayouts: WireRecord[] = [];
  readonly virtualAccounts = new Map<string, WireRecord>();
  /**
   * Wallet transactions kept in the ledger but left out of `GET /transaction/wallet` (an admin hook): a provider
   * whose listing lost a record, which the daily statement must report as ours but not at the provider.
   */
  readonly unlistedTransactionIds = new Set<string>();
  private seq = 0;
  private readonly counters = new Map<number, number>();

  /** Monotonic sequence used to order records created at the same instant. */
  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  /** Next deterministic id of a resource kind. */
  nextId(group: number): string {
    const n = (this.counters.get(group) ?? 0) + 1;
    this.counters.set(group, n);
    return uuidFor(group, n);
  }

  mainWallet(): Wallet {
    const wallet = this.wallets.get(this.mainWalletId);
    if (!wallet) throw new Error('sandbox state has no main wallet');
    return wallet;
  }

  /**
   * Applies balance changes all together or not at all.
   * @returns the id of the first wallet that would go negative, or undefined once applied
   */
  post(postings: readonly { walletId: string; deltaKobo: number }[]): string | undefined {
    const next = new Map<string, number>();
    for (const { walletId, deltaKobo } of postings) {
      const wallet = this.wallets.get(walletId);
      if (!wallet) throw new Error(`posting to unknown wallet ${walletId}`);
      next.set(walletId, (next.get(walletId) ?? wallet.balanceKobo) + deltaKobo);
    }
    for (const [walletId, balance] of next) if (balance < 0) return walletId;
    for (const [walletId, balance] of next) this.wallets.get(walletId)!.balanceKobo = balance;
    return undefined;
  }
}
