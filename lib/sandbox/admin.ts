/** Sandbox-only admin paths under `/__sandbox/` (no auth, not part of the provider interface). */
import { SETTLEMENT_CATEGORY, SETTLEMENT_STATUS, type SettlementCategory } from './contract.js';
import { badRequest, notFound } from './errors.js';
import { type FaultQueue, parseFaultSpec } from './faults.js';
import type { Reply, SandboxRequest } from './http.js';
import { ID_GROUP } from './ids.js';
import type { MarkedRequests } from './marked-requests.js';
import type { SandboxState } from './state.js';
import { isJsonObject } from './validate.js';
import { fixturesOf, ledgerOf } from './views.js';

export interface AdminTarget {
  state(): SandboxState;
  readonly faults: FaultQueue;
  readonly markedRequests: MarkedRequests;
  stats(): { requests: Record<string, number> };
  reset(): void;
  /** The sandbox's clock. */
  now(): Date;
}

const json = (body: unknown): Reply => ({ status: 200, body });

export function handleAdmin(req: SandboxRequest, target: AdminTarget): Reply {
  const route = `${req.method} ${req.path}`;
  switch (route) {
    case 'GET /__sandbox/fixtures':
      return json(fixturesOf(target.state()));
    case 'GET /__sandbox/ledger':
      return json(ledgerOf(target.state()));
    case 'GET /__sandbox/stats':
      return json(target.stats());
    case 'GET /__sandbox/marked-requests':
      return json({ requests: target.markedRequests.list() });
    case 'GET /__sandbox/faults':
      return json({ faults: target.faults.pending() });
    case 'POST /__sandbox/faults': {
      const spec = parseFaultSpec(req.body);
      target.faults.add(spec);
      return json({ status: true, fault: spec, pending: target.faults.pending().length });
    }
    case 'DELETE /__sandbox/faults':
      target.faults.clear();
      return json({ status: true });
    case 'POST /__sandbox/settlements': {
      const state = target.state();
      const settlement = {
        ...parseSettlementSpec(req.body),
        seq: state.nextSeq(),
        id: state.nextId(ID_GROUP.settlement),
        chargesKobo: 0,
        status: SETTLEMENT_STATUS.successful,
        createdAt: target.now(),
      };
      state.settlements.push(settlement);
      return json({ status: true, settlement: { id: settlement.id } });
    }
    case 'PATCH /__sandbox/wallet-transactions': {
      const state = target.state();
      const change = parseRecordChange(req.body);
      const index = state.walletTransactions.findIndex((t) => t.id === change.transactionId);
      const record = state.walletTransactions[index];
      if (!record) throw notFound(`transactionId: transaction ${change.transactionId} not found`);
      // The records are immutable values: an amended one replaces the old in place, keeping its order.
      if (change.chargesKobo !== undefined || change.amountKobo !== undefined) {
        state.walletTransactions[index] = {
          ...record,
          ...(change.chargesKobo !== undefined && { chargesKobo: change.chargesKobo }),
          ...(change.amountKobo !== undefined && { amountKobo: change.amountKobo }),
        };
      }
      if (change.listed === false) state.unlistedTransactionIds.add(record.id);
      if (change.listed === true) state.unlistedTransactionIds.delete(record.id);
      return json({ status: true });
    }
    case 'POST /__sandbox/reset':
      target.reset();
      return json({ status: true });
    default:
      throw notFound(`no sandbox admin route ${route}`);
  }
}

/**
 * Adds a successful settlement at a running sandbox through its admin path (`POST /__sandbox/settlements`, which
 * counts as no provider request) and answers its id; it is the newest the sandbox lists.
 *
 * @example const id = await addSettlement(sandbox.url, { category: 'MERCHANT_SETTLEMENT', amountKobo: 250_000 });
 */
export async function addSettlement(
  sandboxUrl: string,
  spec: { category: SettlementCategory; amountKobo: number },
): Promise<string> {
  const response = await fetch(new URL('/__sandbox/settlements', sandboxUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  const body = (await response.json()) as { settlement?: { id?: unknown } };
  if (!response.ok || typeof body.settlement?.id !== 'string')
    throw new Error(`the sandbox added no settlement: ${response.status} ${JSON.stringify(body)}`);
  return body.settlement.id;
}

const SETTLED_CATEGORIES: readonly SettlementCategory[] = [
  SETTLEMENT_CATEGORY.merchant,
  SETTLEMENT_CATEGORY.card,
];

/** `{ category: 'MERCHANT_SETTLEMENT' | 'CARD_SETTLEMENT', amountKobo: integer > 0 }`. */
function parseSettlementSpec(body: unknown): { category: SettlementCategory; amountKobo: number } {
  if (!isJsonObject(body)) throw badRequest('settlement must be a JSON object');
  const category = SETTLED_CATEGORIES.find((candidate) => candidate === body.category);
  if (category === undefined) throw badRequest(`category must be one of ${SETTLED_CATEGORIES.join(', ')}`);
  const { amountKobo } = body;
  if (!(typeof amountKobo === 'number' && Number.isSafeInteger(amountKobo) && amountKobo > 0)) {
    throw badRequest('amountKobo must be an integer > 0');
  }
  return { category, amountKobo };
}

/**
 * Amends a wallet transaction at a running sandbox (`PATCH /__sandbox/wallet-transactions`, no provider request):
 * `chargesKobo` re-prices it as a provider that charged other than it answered; `amountKobo` makes it a record of
 * another amount than the operation moved (the balances stay as they are); `listed: false` keeps it out of
 * `GET /transaction/wallet` as a provider whose listing lost it.
 *
 * @example await amendWalletTransaction(sandbox.url, { transactionId, chargesKobo: 5_375 });
 */
export async function amendWalletTransaction(
  sandboxUrl: string,
  change: { transactionId: string; chargesKobo?: number; amountKobo?: number; listed?: boolean },
): Promise<void> {
  const response = await fetch(new URL('/__sandbox/wallet-transactions', sandboxUrl), {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(change),
  });
  if (!response.ok)
    throw new Error(`the sandbox amended nothing: ${response.status} ${await response.text()}`);
}

/** `{ transactionId: string, chargesKobo?: integer >= 0, amountKobo?: integer > 0, listed?: boolean }`. */
function parseRecordChange(body: unknown): {
  transactionId: string;
  chargesKobo?: number;
  amountKobo?: number;
  listed?: boolean;
} {
  if (!isJsonObject(body)) throw badRequest('change must be a JSON object');
  const { transactionId, chargesKobo, amountKobo, listed } = body;
  if (typeof transactionId !== 'string' || transactionId === '')
    throw badRequest('transactionId must be a string');
  if (
    chargesKobo !== undefined &&
    !(typeof chargesKobo === 'number' && Number.isSafeInteger(chargesKobo) && chargesKobo >= 0)
  ) {
    throw badRequest('chargesKobo must be an integer >= 0');
  }
  if (
    amountKobo !== undefined &&
    !(typeof amountKobo === 'number' && Number.isSafeInteger(amountKobo) && amountKobo > 0)
  ) {
    throw badRequest('amountKobo must be an integer > 0');
  }
  if (listed !== undefined && typeof listed !== 'boolean') throw badRequest('listed must be a boolean');
  return {
    transactionId,
    ...(chargesKobo !== undefined && { chargesKobo }),
    ...(amountKobo !== undefined && { amountKobo }),
    ...(listed !== undefined && { listed }),
  };
}
