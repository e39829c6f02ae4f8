/**
 * The provider sandbox: a stateful, faithful implementation of the provider interface over HTTP on 127.0.0.1.
 *
 * @example
 * const sandbox = await startSandbox();
 * const res = await fetch(`${sandbox.url}/wallet/transfer`, { method: 'POST', headers: {...}, body });
 * expect(sandbox.ledger().operations).toHaveLength(1);
 * await sandbox.close();
 */

import type { FaultSpec } from './faults.js';
import { type FeeTable, feeTable } from './fees.js';
import type { MarkedRequest } from './marked-requests.js';
import { SandboxServer } from './server.js';
import {
  fixturesOf,
  ledgerOf,
  type SandboxFixtures,
  type SandboxLedger,
  type SandboxStats,
} from './views.js';

export { addSettlement, amendWalletTransaction } from './admin.js';
export type { SettlementCategory } from './contract.js';
export { FAULT_KINDS, type FaultKind, type FaultSpec } from './faults.js';
export { DEFAULT_FEES, type FeeTable, type FeeTier } from './fees.js';
export type { MarkedRequest } from './marked-requests.js';
export { PAY_URL } from './seed-payment-links.js';
export type { LedgerEntry, LedgerWallet, SandboxFixtures, SandboxLedger, SandboxStats } from './views.js';

export const DEFAULT_TOKEN = 'sandbox-token';
export const DEFAULT_PIN = '0000';

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: '127.0.0.1';
  /** Bearer token the sandbox accepts (default `sandbox-token`). */
  readonly token?: string;
  /** Wallet PIN (default `0000`). */
  readonly pin?: string;
  /** Fixed latency added to every provider-interface response, for benchmarks. */
  readonly latencyMs?: number;
  /** Overrides of the fee table (kobo). */
  readonly fees?: Partial<FeeTable>;
  /** Injectable clock for every timestamp the sandbox writes. */
  readonly now?: () => Date;
}

export interface Sandbox {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  readonly pin: string;
  close(): Promise<void>;
  /** Restores the seeded state, clears faults and request counts. */
  reset(): void;
  fixtures(): SandboxFixtures;
  ledger(): SandboxLedger;
  stats(): SandboxStats;
  /** Provider requests whose body carries a payout marker, in arrival order, as `GET /__sandbox/marked-requests`. */
  markedRequests(): readonly MarkedRequest[];
  /** Queues a fault, as `POST /__sandbox/faults` does. */
  injectFault(fault: FaultSpec): void;
  clearFaults(): void;
  /** Lists wallet transactions only once they are this old on the sandbox's clock (0 by default and on reset). */
  setListingLag(milliseconds: number): void;
}

/** Starts a sandbox on 127.0.0.1 and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const token = options.token ?? DEFAULT_TOKEN;
  const pin = options.pin ?? DEFAULT_PIN;
  const server = new SandboxServer({
    token,
    pin,
    latencyMs: options.latencyMs ?? 0,
    fees: feeTable(options.fees),
    now: options.now ?? (() => new Date()),
  });
  const host = options.host ?? '127.0.0.1';
  const port = await server.listen(options.port ?? 0, host);
  return {
    url: `http://${host}:${port}`,
    port,
    token,
    pin,
    close: () => server.close(),
    reset: () => server.reset(),
    fixtures: () => fixturesOf(server.state()),
    ledger: () => ledgerOf(server.state()),
    stats: () => server.stats(),
    markedRequests: () => [...server.markedRequests.list()],
    injectFault: (fault) => server.faults.add(fault),
    clearFaults: () => server.faults.clear(),
    setListingLag: (milliseconds) => {
      server.listingLagMs = milliseconds;
    },
  };
}
