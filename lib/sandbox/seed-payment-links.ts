/**
 * Seeded read-only resources in wire form: payment links, their transactions and payment statuses, terminal
 * usages, recurrent payouts and virtual accounts. Deterministic: fixed ids and dates, no randomness.
 */
import { toNaira } from '../money.js';
import { bankName, WALLET_BANK } from './banks.js';
import { ID_GROUP, uuidFor } from './ids.js';
import type { SandboxState, Store, WireRecord } from './state.js';

/** Pay host of payment-link addresses (never resolved: `.invalid`). */
export const PAY_URL = 'https://pay.sandbox.invalid';

const day = (d: string, time = '09:30:00.000'): string => `${d}T${time}Z`;

interface LinkTransactionSeed {
  readonly n: number;
  readonly method: 'Card' | 'Bank' | null;
  readonly status: 'SUCCESS' | null;
  readonly amountKobo: number;
  readonly chargesKobo: number;
  readonly createdAt: string;
  readonly subaccountShareKobo?: number;
  readonly cardNumber?: string;
  readonly legacyEmail?: boolean;
}

const LINK_TRANSACTIONS: readonly LinkTransactionSeed[] = [
  {
    n: 1,
    method: 'Card',
    status: 'SUCCESS',
    amountKobo: 2_000_00,
    chargesKobo: 30_00,
    createdAt: day('2025-03-01'),
  },
  {
    n: 2,
    method: 'Card',
    status: 'SUCCESS',
    amountKobo: 15_000_00,
    chargesKobo: 150_00,
    createdAt: day('2025-03-02'),
    cardNumber: '',
    subaccountShareKobo: 5_000_00,
  },
  {
    n: 3,
    method: 'Bank',
    status: 'SUCCESS',
    amountKobo: 294_90,
    chargesKobo: 2_95,
    createdAt: day('2025-03-03'),
  },
  {
    n: 4,
    method: 'Bank',
    status: 'SUCCESS',
    amountKobo: 50_000_00,
    chargesKobo: 100_00,
    createdAt: day('2025-03-04'),
    legacyEmail: true,
  },
  { n: 5, method: null, status: null, amountKobo: 7_500_00, chargesKobo: 0, createdAt: day('2025-03-05') },
  {
    n: 6,
    method: 'Bank',
    status: 'SUCCESS',
    amountKobo: 1_234_56,
    chargesKobo: 12_35,
    createdAt: day('2025-03-06'),
  },
];

function linkTransaction(state: SandboxState, s: LinkTransactionSeed, mainWalletId: string): WireRecord {
  const id = uuidFor(ID_GROUP.paymentLinkTransaction, s.n);
  const subKobo = s.subaccountShareKobo ?? 0;
  const mainKobo = s.amountKobo - s.chargesKobo - subKobo;
  const common = {
    id,
    bearer: 'account',
    status: s.status,
    amount: toNaira(s.amountKobo),
    charges: toNaira(s.chargesKobo),
    category: 'paymentLink',
    reference: `PLT-2025-${String(s.n).padStart(6, '0')}`,
    amountPaid: toNaira(s.status === null ? 0 : s.amountKobo),
    subaccountId: subKobo > 0 ? uuidFor(ID_GROUP.subaccount, 1) : null,
    instantSettlement: false,
    mainAccountShare: toNaira(mainKobo),
    mainAccountSettlement: toNaira(mainKobo),
    totalSettlementAmount: toNaira(mainKobo + subKobo),
    paymentMethod: s.method,
    createdAt: s.createdAt,
    paidAt: s.createdAt,
    merchant: { id: state.merchant.id, businessName: state.merchant.businessName },
  };
  if (s.method !== 'Bank') {
    return {
      ...common,
      subaccountShare: toNaira(subKobo),
      subaccountSettlement: toNaira(subKobo),
      rrn: `50${String(300_000_000 + s.n)}`,
      last4: '4321',
      scheme: 'VERVE',
      currency: 'NGN',
      cardNumber: s.cardNumber ?? '506099******4321',
      terminalId: '2MPT0001',
      hasActiveSubaccount: subKobo > 0,
    };
  }
  const email = `customer${s.n}@example.com`;
  return {
    ...common,
    subAccountShare: toNaira(subKobo),
    subAccountSettlement: toNaira(subKobo),
    ...(s.legacyEmail ? { email } : { fields: { customerEmail: email } }),
    walletId: mainWalletId,
    narration: `Payment for order ${s.n}`,
    sessionId: `100004250303093000${String(s.n).padStart(12, '0')}`,
    isPaymentLink: true,
    paymentLinkId: uuidFor(ID_GROUP.paymentLink, 1),
    settledAmount: toNaira(s.amountKobo - s.chargesKobo),
    paymentReference: `PAY-${String(s.n).padStart(8, '0')}`,
    customerReference: `CUST-${String(s.n).padStart(6, '0')}`,
    ...bankFunding(s.n, state.merchant.businessName),
  };
}

function bankFunding(n: number, merchantName: string) {
  return {
    originatorBankCode: '058',
    originatorBankName: bankName('058') ?? '',
    originatorAccountName: `CUSTOMER ${n}`,
    originatorAccountNumber: `01234567${String(n).padStart(2, '0')}`,
    beneficiaryBankCode: WALLET_BANK.code,
    beneficiaryBankName: WALLET_BANK.name,
    beneficiaryAccountName: merchantName,
    beneficiaryAccountNumber: '8000000001',
    originatorBankVerificationNumber: '',
    beneficiaryBankVerificationNumber: '',
  };
}

function paymentStatus(state: SandboxState, t: WireRecord, n: number): WireRecord {
  const amount = Number(t.amount);
  const charges = Number(t.charges);
  const funding = bankFunding(n, state.merchant.businessName);
  return {
    id: uuidFor(ID_GROUP.paymentStatus, n),
    mode: 'SANDBOX',
    type: 'CREDIT',
    category: 'BANK_FUNDING',
    amount,
    settledAmount: t.settledAmount,
    charges,
    vat: 0,
    reference: String(t.reference),
    status: 'SUCCESS',
    paidAt: t.createdAt,
    walletType: 'DYNAMIC',
    description: `Payment link funding of ${amount}`,
    sessionId: t.sessionId,
    isMerchantAccount: true,
    isServiceAccount: false,
    externalReference: t.paymentReference,
    externalTransactionId: null,
    merchantId: state.merchant.id,
    walletId: t.walletId,
    createdAt: t.createdAt,
    updatedAt: t.createdAt,
    deletedAt: null,
    metadata: {
      narration: t.narration,
      reference: t.reference,
      amountPaid: t.amountPaid,
      isPaymentLink: true,
      paymentLinkId: t.paymentLinkId,
      paymentMethod: 'Bank Transfer',
      subaccountShare: 0,
      mainAccountShare: t.mainAccountShare,
      hasActiveSubaccount: false,
      subaccountSettlement: 0,
      mainAccountSettlement: t.mainAccountSettlement,
      totalSettlementAmount: t.totalSettlementAmount,
      ...funding,
    },
  };
}

export function seedPaymentLinks(state: SandboxState): void {
  for (const s of LINK_TRANSACTIONS) {
    const t = linkTransaction(state, s, state.mainWalletId);
    state.paymentLinkTransactions.push(t);
    if (s.method === 'Bank') state.paymentStatuses.set(String(t.reference), paymentStatus(state, t, s.n));
  }
  const links = [
    {
      n: 1,
      name: 'Order checkout',
      amountKobo: 2_000_00,
      hasPaid: true,
      bearer: 'account',
      createdAt: '2025-02-01',
    },
    {
      n: 2,
      name: 'School fees',
      amountKobo: 150_000_00,
      hasPaid: false,
      bearer: 'subaccount',
      createdAt: '2025-02-02',
    },
    { n: 3, name: 'Donation', amountKobo: 294_90, hasPaid: true, bearer: 'account', createdAt: '2025-02-03' },
  ];
  for (const l of links) {
    const id = uuidFor(ID_GROUP.paymentLink, l.n);
    state.paymentLinks.push({
      id,
      link: `${PAY_URL}/${id}`,
      amount: toNaira(l.amountKobo),
      hasPaid: l.hasPaid,
      bearer: l.bearer,
      name: l.name,
      status: 'ACTIVE',
      createdAt: day(l.createdAt),
    });
  }
}

export function seedTerminalUsages(state: SandboxState, stores: readonly Store[]): void {
  stores.forEach((store, i) => {
    const agent = store.agents[0];
    if (!agent) return;
    for (let k = 1; k <= 2; k += 1) {
      const n = i * 2 + k;
      state.terminalUsages.push({
        id: uuidFor(ID_GROUP.usage, n),
        createdAt: day(`2025-04-0${n}`),
        store: { id: store.id, name: store.name, code: store.code, createdAt: store.createdAt.toISOString() },
        terminal: {
          id: uuidFor(ID_GROUP.terminal, i + 1),
          name: `${store.name} POS`,
          code: `TRM-${store.id}`,
          createdAt: store.createdAt.toISOString(),
        },
        agent: {
          id: agent.id,
          firstName: agent.firstName,
          lastName: agent.lastName,
          createdAt: agent.createdAt.toISOString(),
        },
      });
    }
  });
}

export function seedRecurrentAndVirtual(state: SandboxState): void {
  const recurrent = [
    { n: 1, code: '058', amountKobo: 10_000_00, name: 'ADA OKAFOR', number: '0123456789', at: '2025-01-10' },
    { n: 2, code: '044', amountKobo: 2_500_50, name: 'TUNDE BAKARE', number: '0987654321', at: '2025-01-12' },
  ];
  for (const r of recurrent) {
    state.recurrentPayouts.push({
      id: uuidFor(ID_GROUP.recurrent, r.n),
      email: `payee${r.n}@example.com`,
      amount: toNaira(r.amountKobo),
      status: 'CANCELLED',
      charges: 10.75,
      interval: 'Daily',
      startDate: day(r.at, '00:00:00.000'),
      endDate: day(r.at.replace('-01-', '-02-'), '00:00:00.000'),
      bankName: bankName(r.code) ?? '',
      bankCode: r.code,
      accountName: r.name,
      accountNumber: r.number,
      narration: `Daily allowance ${r.n}`,
      metadata: null,
      createdAt: day(r.at),
    });
  }
  for (const n of [1, 2]) {
    const customerReference = `VA-CUST-${String(n).padStart(4, '0')}`;
    state.virtualAccounts.set(customerReference, {
      id: uuidFor(ID_GROUP.virtualAccount, n),
      tier: 1,
      status: 'UNUSED',
      bankCode: WALLET_BANK.code,
      bankName: WALLET_BANK.name,
      accountName: `${state.merchant.businessName} / Customer ${n}`,
      accountNumber: `90000000${String(n).padStart(2, '0')}`,
      createdAt: day('2025-05-01'),
      expiryDuration: 3600,
      maxUsage: 1,
      currentUsage: 0,
      amount: toNaira(n * 5_000_00),
      merchantId: state.merchant.id,
      settlementCharge: 0,
      initiationReference: `VA-INIT-${String(n).padStart(4, '0')}`,
      customerReference,
      webhookURL: 'https://merchant.example.com/webhooks/virtual-accounts',
      customerMetadata: { customerId: `C${n}` },
      metadata: { source: 'sandbox-seed' },
    });
  }
}
