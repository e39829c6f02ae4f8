/**
 * The seeded world: one merchant with a main wallet of 1,000,000,000.00, three stores with wallets and agents,
 * three child accounts with wallets, and records of every resource and every value set the interface lists.
 * Deterministic (fixed ids and dates), so tests are reproducible and `reset` restores exactly this.
 */
import { bankName, WALLET_BANK } from './banks.js';
import { revalidate } from './bulk-items.js';
import {
  SCHEDULED_STATUS,
  SETTLEMENT_CATEGORY,
  SETTLEMENT_STATUS,
  TRANSACTION_TYPE,
  WALLET_CATEGORY,
} from './contract.js';
import { ID_GROUP, uuidFor } from './ids.js';
import { seedPaymentLinks, seedRecurrentAndVirtual, seedTerminalUsages } from './seed-payment-links.js';
import { type BankParty, SandboxState, type Store, type Wallet, type WalletKind } from './state.js';

const at = (iso: string): Date => new Date(iso);

function addWallet(
  state: SandboxState,
  n: number,
  kind: WalletKind,
  accountName: string,
  balanceKobo: number,
) {
  const wallet: Wallet = {
    id: uuidFor(ID_GROUP.wallet, n),
    kind,
    bankCode: WALLET_BANK.code,
    bankName: WALLET_BANK.name,
    accountName,
    accountNumber: `80000000${String(n).padStart(2, '0')}`,
    balanceKobo,
  };
  state.wallets.set(wallet.id, wallet);
  return wallet;
}

function seedStores(state: SandboxState): Store[] {
  const specs = [
    {
      id: '1001',
      name: 'Ikeja Branch',
      code: 'IKJ',
      email: 'ikeja@merchant.example.com',
      kobo: 2_500_000_00,
    },
    { id: '1002', name: 'Lekki Branch', code: null, email: null, kobo: 1_250_000_50 },
    { id: '1003', name: 'Wuse Branch', code: 'ABJ', email: 'wuse@merchant.example.com', kobo: 500_000_00 },
  ];
  const agents = [
    [
      { first: 'Chidi', last: 'Eze' },
      { first: 'Funke', last: 'Adeyemi' },
    ],
    [{ first: 'Musa', last: 'Bello' }],
    [],
  ];
  return specs.map((spec, i) => {
    const wallet = addWallet(
      state,
      i + 2,
      'store',
      `${state.merchant.businessName} - ${spec.name}`,
      spec.kobo,
    );
    const createdAt = at(`2025-01-0${i + 2}T08:00:00.000Z`);
    const store: Store = {
      id: spec.id,
      name: spec.name,
      code: spec.code,
      phoneNumber: `+23480300000${i + 1}`,
      email: spec.email,
      website: 'https://merchant.example.com',
      address: `${i + 1} Sandbox Road, Lagos`,
      walletId: wallet.id,
      createdAt,
      agents: (agents[i] ?? []).map((a, k) => ({
        id: uuidFor(ID_GROUP.agent, i * 10 + k + 1),
        firstName: a.first,
        lastName: a.last,
        email: `${a.first.toLowerCase()}@merchant.example.com`,
        createdAt,
      })),
    };
    state.stores.set(store.id, store);
    return store;
  });
}

function seedChildAccounts(state: SandboxState): void {
  const specs = [
    { name: 'Ada Okafor Ventures', kobo: 5_000_000_00 },
    { name: 'Bola Ahmed Stores', kobo: 750_000_00 },
    { name: 'Chinedu Kitchens', kobo: 1_000_00 },
  ];
  specs.forEach((spec, i) => {
    const wallet = addWallet(state, i + 5, 'child', spec.name, spec.kobo);
    const id = uuidFor(ID_GROUP.childAccount, i + 1);
    state.childAccounts.set(id, {
      id,
      name: spec.name,
      accountNumber: wallet.accountNumber,
      walletId: wallet.id,
    });
  });
}

function seedSettlements(state: SandboxState): void {
  const specs = [
    { c: SETTLEMENT_CATEGORY.merchant, s: SETTLEMENT_STATUS.successful, kobo: 120_000_00, fee: 50_00 },
    { c: SETTLEMENT_CATEGORY.merchant, s: SETTLEMENT_STATUS.failed, kobo: 0, fee: 0 },
    { c: SETTLEMENT_CATEGORY.subaccount, s: SETTLEMENT_STATUS.successful, kobo: 5_000_00, fee: 10_75 },
    { c: SETTLEMENT_CATEGORY.instant, s: SETTLEMENT_STATUS.successful, kobo: 294_90, fee: 10_75 },
    { c: SETTLEMENT_CATEGORY.card, s: SETTLEMENT_STATUS.successful, kobo: 17_000_00, fee: 180_00 },
    { c: SETTLEMENT_CATEGORY.card, s: SETTLEMENT_STATUS.failed, kobo: 2_000_00, fee: 0 },
  ];
  specs.forEach((spec, i) => {
    state.settlements.push({
      seq: state.nextSeq(),
      id: state.nextId(ID_GROUP.settlement),
      amountKobo: spec.kobo,
      chargesKobo: spec.fee,
      status: spec.s,
      category: spec.c,
      createdAt: at(`2025-02-1${i}T23:00:00.000Z`),
      ...(spec.c === SETTLEMENT_CATEGORY.subaccount
        ? { subaccount: { id: uuidFor(ID_GROUP.subaccount, 1), name: 'Ada Okafor Ventures (split)' } }
        : {}),
    });
  });
}

function seedWalletTransactions(state: SandboxState): string {
  const main = state.mainWallet();
  const store = [...state.wallets.values()].find((w) => w.kind === 'store');
  if (!store) throw new Error('seed needs a store wallet');
  const customer: BankParty = {
    bankCode: '058',
    bankName: bankName('058') ?? '',
    accountName: 'EMEKA NWOSU',
    accountNumber: '0123456789',
  };
  const base = {
    status: 'SUCCESS',
    vatKobo: 0,
    isPayout: false,
  } as const;
  const add = (record: Omit<Parameters<typeof state.walletTransactions.push>[0], 'seq' | 'id'>) => {
    const id = state.nextId(ID_GROUP.walletTransaction);
    state.walletTransactions.push({ ...record, seq: state.nextSeq(), id });
    return id;
  };
  for (const [n, kobo] of [
    [1, 250_000_00],
    [2, 294_90],
  ] as const) {
    add({
      ...base,
      walletId: main.id,
      type: TRANSACTION_TYPE.credit,
      category: WALLET_CATEGORY.bankFunding,
      amountKobo: kobo,
      chargesKobo: 50_00 > kobo ? 0 : 50_00,
      reference: `FUND-2025-${n}`,
      sessionId: `100004250115100000${String(n).padStart(12, '0')}`,
      description: `Wallet funding of ${kobo / 100} by bank transfer`,
      narration: `Top-up ${n}`,
      createdAt: at(`2025-01-1${n}T10:00:00.000Z`),
      originator: customer,
      beneficiary: main,
      funding: {
        userId: state.merchant.id,
        channelCode: 'NIP',
        transactionReference: `NIP-FUND-${n}`,
        originatorBankVerificationNumber: '',
        beneficiaryBankVerificationNumber: '',
      },
    });
  }
  const merchantMove = {
    ...base,
    amountKobo: 20_000_00,
    chargesKobo: 0,
    reference: 'MOVE-2025-1',
    sessionId: null,
    description: 'Wallet credited with NGN 20,000.00',
    narration: 'Float for Ikeja Branch',
    createdAt: at('2025-01-20T12:00:00.000Z'),
    originator: main,
    beneficiary: store,
  };
  add({
    ...merchantMove,
    walletId: main.id,
    type: TRANSACTION_TYPE.debit,
    category: WALLET_CATEGORY.merchantDebit,
  });
  add({
    ...merchantMove,
    walletId: store.id,
    type: TRANSACTION_TYPE.credit,
    category: WALLET_CATEGORY.merchantCredit,
  });
  return add({
    ...base,
    vatKobo: 1_88,
    isPayout: true,
    walletId: main.id,
    type: TRANSACTION_TYPE.debit,
    category: WALLET_CATEGORY.bankTransfer,
    amountKobo: 10_000_00,
    chargesKobo: 26_88,
    reference: 'PAYOUT-2025-1',
    sessionId: '100004250125090000000000000001',
    description: 'Transfer of NGN 10,000.00 to ADA OKAFOR',
    narration: 'Scheduled payout 1',
    createdAt: at('2025-01-25T09:00:00.000Z'),
    originator: main,
    beneficiary: {
      bankCode: '058',
      bankName: bankName('058') ?? '',
      accountName: 'ADA OKAFOR',
      accountNumber: '0123456789',
    },
  });
}

function seedScheduled(state: SandboxState, dispatchedTransactionId: string): void {
  const specs = [
    {
      s: SCHEDULED_STATUS.dispatched,
      tx: dispatchedTransactionId,
      when: '2025-01-25T09:00:00.000Z',
      code: '058',
    },
    {
      s: SCHEDULED_STATUS.dispatched,
      tx: uuidFor(ID_GROUP.walletTransaction, 999),
      when: '2025-02-25T09:00:00.000Z',
      code: '057',
    },
    { s: SCHEDULED_STATUS.cancelled, tx: null, when: '2025-03-25T09:00:00.000Z', code: '011' },
  ];
  specs.forEach((spec, i) => {
    const cancelled = spec.s === SCHEDULED_STATUS.cancelled;
    state.scheduledPayouts.push({
      seq: state.nextSeq(),
      id: uuidFor(ID_GROUP.scheduled, i + 1),
      email: cancelled ? null : `payee${i + 1}@example.com`,
      amountKobo: 10_000_00,
      chargesKobo: 26_88,
      status: spec.s,
      scheduleDate: at(spec.when),
      transactionId: spec.tx,
      accountNumber: `012345678${i}`,
      accountName: cancelled ? null : 'ADA OKAFOR',
      bankCode: spec.code,
      bankName: bankName(spec.code) ?? '',
      narration: cancelled ? null : `Scheduled payout ${i + 1}`,
      createdAt: at(`2025-01-0${i + 5}T08:00:00.000Z`),
    });
  });
}

function seedBulkItems(state: SandboxState): void {
  const specs = [
    { bulk: 1, name: 'ADA OKAFOR', number: '0123456789', code: '058', kobo: 5_000_00 },
    { bulk: 1, name: 'TUNDE BAKARE', number: '0987654321', code: '044', kobo: 12_000_00 },
    { bulk: 1, name: 'NGOZI EZE', number: '12345', code: '033', kobo: 3_000_00 },
    { bulk: 1, name: 'KUNLE ADE', number: '1122334455', code: '999', kobo: 4_000_00 },
    { bulk: 2, name: 'AMAKA OBI', number: '2233445566', code: '057', kobo: 7_000_00 },
    { bulk: 2, name: 'SEGUN AWO', number: '3344556677', code: '232', kobo: 9_500_00 },
  ];
  specs.forEach((spec, i) => {
    const item = {
      id: uuidFor(ID_GROUP.bulkItem, i + 1),
      bulkPayoutId: uuidFor(ID_GROUP.bulkPayout, spec.bulk),
      amountKobo: spec.kobo,
      accountName: spec.name,
      accountNumber: spec.number,
      bankCode: spec.code,
      narration: `Bulk payout ${spec.bulk} item ${i + 1}`,
      phoneNumber: `+2348030000${String(i).padStart(3, '0')}`,
      isValid: true,
      reason: null,
      createdAt: at(`2025-05-10T10:00:0${i}.000Z`),
    };
    revalidate(item);
    state.bulkItems.set(item.id, item);
  });
}

/** Builds a fresh seeded state. */
export function seedState(): SandboxState {
  const state = new SandboxState();
  const main = addWallet(state, 1, 'merchant', state.merchant.businessName, 1_000_000_000_00);
  state.mainWalletId = main.id;
  const stores = seedStores(state);
  seedChildAccounts(state);
  seedPaymentLinks(state);
  seedTerminalUsages(state, stores);
  seedRecurrentAndVirtual(state);
  seedSettlements(state);
  seedScheduled(state, seedWalletTransactions(state));
  seedBulkItems(state);
  return state;
}
