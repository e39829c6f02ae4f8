import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Principal } from '../../lib/controls/index.js';
import { ProviderPayoutGateway } from '../../lib/payouts/adapters/provider-payout-gateway.js';
import type { EngineConfig } from '../../lib/payouts/config.js';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import type { PayoutGateway } from '../../lib/payouts/gateway.js';
import type { AuditEvent, Payout, PayoutOrigin } from '../../lib/payouts/model.js';
import { PayoutEngine } from '../../lib/payouts/payout-engine.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { CreatePayoutRequest } from '../../lib/payouts/schemas.js';
import { PayoutAuditTrail } from '../../lib/payouts/store/audit-trail.js';
import { PayoutListing } from '../../lib/payouts/store/payout-listing.js';
import type { PayoutStore } from '../../lib/payouts/store/payout-store.js';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import { type Sandbox, type SandboxFixtures, startSandbox } from '../../lib/sandbox/index.js';
import { observeAwsCalls } from '../../lib/shared/aws-call-observer.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { CapturingLogger } from '../../lib/shared/logger.js';
import { createTestTable } from './dynamodb.js';
import { iamChecked, UNATTRIBUTED } from './iam/checked-calls.js';

export const HARNESS_TOKEN = 'tok-NEVER-LOG-6c1f';
export const HARNESS_PIN = 'pin-NEVER-LOG-93b2';

export const alice: Principal = { id: 'alice', kind: 'user' };
export const bob: Principal = { id: 'bob', kind: 'user' };

/**
 * The real engine wired to DynamoDB Local and the sandbox over HTTP, sharing one manual clock so that
 * the provider's timestamps and the reconciler's search windows agree.
 */
export interface EngineHarness {
  readonly engine: PayoutEngine;
  readonly store: PayoutStore;
  readonly sandbox: Sandbox;
  readonly fixtures: SandboxFixtures;
  readonly client: ProviderClient;
  readonly clock: ManualClock;
  readonly logger: CapturingLogger;
  readonly tableName: string;
  /** The DynamoDB client of the harness's table. */
  readonly dynamoDb: DynamoDBClient;
  /** The payouts as the API lists them. */
  readonly listing: PayoutListing;
  /** The payout with its whole audit trail, oldest first, as `GET /payouts/{id}` reads it; throws when absent. */
  getWithAudit(id: string): Promise<{ payout: Payout; audit: AuditEvent[] }>;
  /** Builds another engine over the same table and provider, e.g. with a faulty store or gateway. */
  engineWith(parts: {
    store?: PayoutStore;
    gateway?: PayoutGateway;
    config?: Partial<EngineConfig>;
  }): PayoutEngine;
  close(): Promise<void>;
}

export async function startEngineHarness(config: Partial<EngineConfig> = {}): Promise<EngineHarness> {
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  const { store, tableName, client: dynamoDb } = await createTestTable('engine');
  // Work a test runs as a function (`servedBy('payout-requested', ...)`) is checked against that function's role.
  const iam = iamChecked(UNATTRIBUTED);
  observeAwsCalls(dynamoDb, iam.functionName, iam.observer);
  // Distinctive secrets, so tests can prove they never appear in logs, errors or events.
  const sandbox = await startSandbox({ now: () => clock.now(), token: HARNESS_TOKEN, pin: HARNESS_PIN });
  const client = new ProviderClient({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
    timeouts: { requestMs: 5_000 },
  });
  const logger = new CapturingLogger();
  const gateway = new ProviderPayoutGateway(client);
  const engineWith = (parts: {
    store?: PayoutStore;
    gateway?: PayoutGateway;
    config?: Partial<EngineConfig>;
  }) =>
    new PayoutEngine({
      store: parts.store ?? store,
      gateway: parts.gateway ?? gateway,
      clock,
      logger,
      config: { ...config, ...parts.config },
    });
  return {
    engine: engineWith({}),
    store,
    sandbox,
    fixtures: sandbox.fixtures(),
    client,
    clock,
    logger,
    tableName,
    dynamoDb,
    engineWith,
    listing: new PayoutListing(dynamoDb, tableName),
    async getWithAudit(id) {
      const found = await new PayoutAuditTrail(dynamoDb, tableName).whole(id);
      if (!found) throw new Error(`no payout ${id}`);
      return found;
    },
    async close() {
      await client.close();
      await sandbox.close();
      dynamoDb.destroy();
    },
  };
}

export function bankTransfer(
  amount: number,
  overrides: Partial<CreatePayoutRequest> = {},
): CreatePayoutRequest {
  return {
    type: 'bank_transfer',
    amount,
    currency: 'NGN',
    narration: 'supplier invoice',
    beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Supplies' },
    ...overrides,
  } as CreatePayoutRequest;
}

export function command(request: CreatePayoutRequest, idempotencyKey: string, actor: Principal = alice) {
  return { request, idempotencyKey, origin: 'api' as PayoutOrigin, actor };
}

/** The sandbox's committed operations that carry a payout's marker. */
export function ledgerEntriesOf(sandbox: Sandbox, payoutId: string) {
  return sandbox.ledger().operations.filter((entry) => entry.narration.includes(`po_${payoutId}`));
}

/**
 * A bank payout made straight at the provider with a narration of one's choosing, as a person on its dashboard
 * would make it (a record our matcher must tell from a payout's own). Returns its transaction id.
 */
export async function payoutMadeAtProvider(
  sandbox: Sandbox,
  {
    amountNaira,
    narration,
    accountNumber = '0123456789',
    accountName = 'Ada Supplies',
  }: {
    amountNaira: number;
    narration: string;
    accountNumber?: string;
    accountName?: string;
  },
): Promise<string> {
  const response = await fetch(`${sandbox.url}/settlement/instant/payout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: amountNaira,
      bankCode: '058',
      accountNumber,
      accountName,
      narration,
      metadata: {},
    }),
  });
  if (response.status !== 200) throw new Error(`the sandbox refused the payout: ${response.status}`);
  return ((await response.json()) as { data: { transactionId: string } }).data.transactionId;
}

/**
 * Pays a pending payout by two attempts: attempt 1 pays, its answer lost, and lists only after the grace period
 * (the sandbox's listing lag is set to that and left so), so it is proved absent and attempt 2 is sent, which pays
 * too, its answer lost: the payout ends `unknown` on attempt 2. Returns the listing lag.
 */
export async function payByTwoAttemptsListedLate(
  h: Pick<EngineHarness, 'sandbox' | 'clock'>,
  engine: PayoutEngine,
  payout: Payout,
): Promise<number> {
  const { reconcileGraceMs, retryBaseMs } = engine.ctx.config;
  const lag = reconcileGraceMs + 30 * 60_000;
  h.sandbox.setListingLag(lag);
  h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
  await engine.submit(payout.id);
  h.clock.advance(reconcileGraceMs + 1);
  await reconcilePayouts(engine.ctx);
  h.clock.advance(retryBaseMs);
  h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
  await payoutSweeper(engine).sweep();
  return lag;
}
