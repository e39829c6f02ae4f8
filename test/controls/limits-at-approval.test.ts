import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandler, createApiHandler } from '../../lib/api/index.js';
import { apiContextFrom } from '../../lib/api/services-from-runtime.js';
import { runSweep } from '../../lib/jobs/scheduled.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { refundSenderOf } from '../../lib/runtime/refunds.js';
import { createRuntime, type Runtime } from '../../lib/runtime/runtime.js';
import { CapturingLogger } from '../../lib/shared/logger.js';
import { checkedAgainstContract } from '../api/support/contract.js';
import {
  type ApiHarness,
  asDeployed,
  bankTransfer,
  call,
  type Reply,
  startApiHarness,
} from '../api/support/harness.js';
import { ledgerEntriesOf } from '../support/engine-harness.js';
import { iamChecked } from '../support/iam/checked-calls.js';

/**
 * The limits in force when money is released apply, not those in force when it was asked for (docs/controls.md):
 * every approval runs the gate again. The stage's maximum is lowered the way operators lower it, by a new
 * configuration, so the approval is served by a runtime built with the new environment (a new Lambda container
 * after the deploy) over the same table and sandbox as the one that accepted the instruction.
 */
const THRESHOLD = 1_000_000;
const OLD_MAX = 2_000_000;
const NEW_MAX = 1_200_000;
/** 15,000 NGN: waits for approval under both limits, allowed by the old maximum, above the new one. */
const AMOUNT = 1_500_000;

let h: ApiHarness;
/** The same stage after its maximum was lowered to NEW_MAX. */
let lowered: { api: ApiHandler; runtime: Runtime };
let keys = 0;
const key = (label: string) => `${label}-${++keys}`;

/** An API over the harness's table and sandbox with other limits, as a redeployed function serves it. */
function apiWithLimits(env: Record<string, string>): { api: ApiHandler; runtime: Runtime } {
  const runtime = createRuntime(
    {
      TABLE_NAME: h.tableName,
      DYNAMODB_ENDPOINT: h.runtime.env.DYNAMODB_ENDPOINT ?? '',
      PROVIDER_BASE_URL: h.sandbox.url,
      PROVIDER_TOKEN: h.sandbox.token,
      PROVIDER_PIN: h.sandbox.pin,
      ...env,
    },
    { logger: new CapturingLogger(), awsCalls: iamChecked() },
  );
  return { api: checkedAgainstContract(asDeployed(createApiHandler(apiContextFrom(runtime)))), runtime };
}

beforeAll(async () => {
  h = await startApiHarness({
    env: { MAX_PAYOUT_KOBO: String(OLD_MAX), APPROVAL_THRESHOLD_KOBO: String(THRESHOLD) },
  });
  lowered = apiWithLimits({ MAX_PAYOUT_KOBO: String(NEW_MAX), APPROVAL_THRESHOLD_KOBO: String(THRESHOLD) });
});
afterAll(async () => {
  await lowered?.runtime.close();
  await h?.close();
});

/** Every request the provider received, on any path: a refused approval calls none. */
const providerRequests = () => Object.values(h.sandbox.stats().requests).reduce((sum, n) => sum + n, 0);

/** The approval refused by the gate: a 400 naming `amount`, saying which maximum and that nothing changed. */
function expectRefusedAbove(reply: Reply, what: string) {
  expect(reply.status).toBe(400);
  expect(reply.body.type).toBe('urn:payout-automation:problem:validation');
  expect(reply.body.errors).toEqual([{ path: 'amount', message: expect.stringContaining(String(NEW_MAX)) }]);
  expect(reply.body.detail).toContain(what);
  expect(reply.body.detail).toContain('cannot be approved under the limits in force now');
  expect(reply.body.detail).toContain('it stays pending_approval and nothing was sent');
}

/** The sweep the every-minute schedule runs, in the runtime of `api`. */
const sweepPayouts = (runtime: Runtime) =>
  servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(runtime)), 60_000));

async function payoutAwaitingApproval(narration: string, amount = AMOUNT): Promise<string> {
  const created = await call(h.api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'Idempotency-Key': key('payout') },
    body: bankTransfer({ amount, narration }),
    principal: 'alice',
  });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('pending_approval');
  return created.body.id;
}

describe('an approval passes the gate again with the limits in force when it is given', () => {
  it('refuses approving a payout above a per-payout maximum lowered while it waited: 400 naming amount, it stays pending_approval, nothing is paid', async () => {
    const id = await payoutAwaitingApproval('lowered while waiting');
    const requests = providerRequests();

    const refused = await call(lowered.api, {
      method: 'POST',
      path: `/payouts/${id}/approve`,
      principal: 'bob',
    });
    expectRefusedAbove(refused, `payout ${id} (${AMOUNT} kobo)`);

    const read = await call(lowered.api, { method: 'GET', path: `/payouts/${id}` });
    expect(read.body.status).toBe('pending_approval');
    expect(read.body.approvedBy).toBeUndefined();
    expect(read.body.audit.map((event: { to: string }) => event.to)).toEqual(['pending_approval']);
    await sweepPayouts(lowered.runtime);
    expect(providerRequests()).toBe(requests);
    expect(ledgerEntriesOf(h.sandbox, id)).toHaveLength(0);

    // It waits for a person as it did: still in the approvals queue, and it can be cancelled.
    const queue = await call(lowered.api, {
      method: 'GET',
      path: '/approvals',
      query: 'kind=payout&limit=100',
      principal: 'carol',
    });
    expect(queue.body.items.map((item: { id: string }) => item.id)).toContain(id);
    const cancelled = await call(lowered.api, {
      method: 'POST',
      path: `/payouts/${id}/cancel`,
      principal: 'bob',
      body: { reason: 'above the new maximum' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(providerRequests()).toBe(requests);
  });

  it('approves a payout under unchanged limits, and one within the lowered maximum, and pays each once', async () => {
    const unchanged = await payoutAwaitingApproval('approved under unchanged limits');
    const approved = await call(h.api, {
      method: 'POST',
      path: `/payouts/${unchanged}/approve`,
      principal: 'bob',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'pending', approvedBy: { id: 'bob' } });

    const within = await payoutAwaitingApproval('within the lowered maximum', NEW_MAX);
    const approvedWithin = await call(lowered.api, {
      method: 'POST',
      path: `/payouts/${within}/approve`,
      principal: 'bob',
    });
    expect(approvedWithin.status).toBe(200);

    await sweepPayouts(h.runtime);
    for (const id of [unchanged, within]) {
      const read = await call(h.api, { method: 'GET', path: `/payouts/${id}` });
      expect(read.body.status).toBe('succeeded');
      expect(read.body.audit[1]).toMatchObject({
        from: 'pending_approval',
        to: 'pending',
        reason: 'approved by bob',
      });
      expect(ledgerEntriesOf(h.sandbox, id)).toHaveLength(1);
    }
  });

  it('refuses approving a refund above a per-payout maximum lowered while it waited, sending nothing, and sends it once approved under a maximum that allows it', async () => {
    const transaction = h.sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid === 50_000);
    const refundCalls = () => h.sandbox.stats().requests['/refund'] ?? 0;
    const created = await call(h.api, {
      method: 'POST',
      path: '/refunds',
      headers: { 'Idempotency-Key': key('refund') },
      body: {
        transactionId: transaction?.id,
        amount: AMOUNT,
        customerNote: 'sorry',
        merchantNote: 'returned',
      },
      principal: 'dave',
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending_approval');
    const id: string = created.body.id;
    const requests = providerRequests();

    const refused = await call(lowered.api, {
      method: 'POST',
      path: `/refunds/${id}/approve`,
      principal: 'erin',
    });
    expectRefusedAbove(refused, `refund ${id} (${AMOUNT} kobo)`);
    const read = await call(lowered.api, { method: 'GET', path: `/refunds/${id}` });
    expect(read.body.status).toBe('pending_approval');
    expect(read.body.approvedBy).toBeUndefined();
    expect(read.body.audit).toHaveLength(1);
    await servedBy('sweep-due-payouts', () => refundSenderOf(lowered.runtime).sweep());
    expect(providerRequests()).toBe(requests);

    const before = refundCalls();
    const approved = await call(h.api, { method: 'POST', path: `/refunds/${id}/approve`, principal: 'erin' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'pending', approvedBy: { id: 'erin' } });
    expect(refundCalls()).toBe(before + 1);
  });

  it('refuses approving a recurring payout rule above a per-payout maximum lowered while it waited, and keeps it waiting unchanged', async () => {
    const created = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': key('rule') },
      body: {
        ...bankTransfer({ amount: AMOUNT, narration: 'monthly retainer' }),
        interval: 'monthly',
        startDate: '2030-01-31',
        timeOfDay: '09:00',
      },
      principal: 'alice',
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending_approval');
    const id: string = created.body.id;

    const refused = await call(lowered.api, {
      method: 'POST',
      path: `/recurring-payouts/${id}/approve`,
      principal: 'bob',
    });
    expectRefusedAbove(refused, `recurring payout ${id} (${AMOUNT} kobo an occurrence)`);
    const read = await call(lowered.api, { method: 'GET', path: `/recurring-payouts/${id}` });
    expect(read.body.status).toBe('pending_approval');
    expect(read.body.approvedBy).toBeUndefined();
    expect(read.body.audit.map((event: { action: string }) => event.action)).toEqual(['created']);

    const approved = await call(h.api, {
      method: 'POST',
      path: `/recurring-payouts/${id}/approve`,
      principal: 'bob',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'active', approvedBy: { id: 'bob' } });
  });

  it('refuses approving a held bulk correction whose amount is above a per-payout maximum lowered while it waited, sending nothing; an unknown amount still waits for and goes with a second person', async () => {
    const patches = () => h.sandbox.stats().requests['/payout/bulk/item'] ?? 0;
    const [first, second] = h.sandbox.fixtures().bulkPayoutItems.filter((item) => item.isValid);
    const held = async (itemId: string, body: Record<string, unknown>, api = h.api) => {
      const reply = await call(api, {
        method: 'PATCH',
        path: `/bulk-payout-items/${itemId}`,
        principal: 'alice',
        body,
      });
      expect(reply.status).toBe(202);
      return `/bulk-payout-items/${itemId}/corrections/${reply.body.correction.correctionId}`;
    };
    const waiting = async () => {
      const queue = await call(lowered.api, {
        method: 'GET',
        path: '/approvals',
        query: 'kind=bulk-correction&limit=100',
        principal: 'carol',
      });
      return queue.body.items.map((item: { approve: { path: string } }) => item.approve.path);
    };

    // A new amount at or above the threshold, approved after the maximum fell below it.
    const amount = await held(first?.id ?? '', { amount: AMOUNT });
    let before = patches();
    const refused = await call(lowered.api, { method: 'POST', path: `${amount}/approve`, principal: 'bob' });
    expectRefusedAbove(refused, `correction ${amount.split('/').at(-1)} of bulk payout item ${first?.id}`);
    expect(patches()).toBe(before);
    expect(await waiting()).toContain(`${amount}/approve`);
    // Approved where the maximum allows it, it is sent, and the item's amount becomes known here.
    const sent = await call(h.api, { method: 'POST', path: `${amount}/approve`, principal: 'bob' });
    expect(sent.status).toBe(200);
    expect(patches()).toBe(before + 1);

    // A new destination redirects that known amount: weighed as the item is known when it is approved.
    const destination = await held(first?.id ?? '', { accountNumber: '1234567890' });
    before = patches();
    const redirected = await call(lowered.api, {
      method: 'POST',
      path: `${destination}/approve`,
      principal: 'bob',
    });
    expectRefusedAbove(
      redirected,
      `correction ${destination.split('/').at(-1)} of bulk payout item ${first?.id}`,
    );
    expect(patches()).toBe(before);
    expect(await waiting()).toContain(`${destination}/approve`);

    // An amount not known here fails closed under the lowered limits too: held, and sent once a second person
    // approves, who stands in for the maximum and the threshold.
    const unknown = await held(second?.id ?? '', { bankCode: '058' }, lowered.api);
    const approved = await call(lowered.api, {
      method: 'POST',
      path: `${unknown}/approve`,
      principal: 'bob',
    });
    expect(approved.status).toBe(200);
    expect(patches()).toBe(before + 1);
  });
});
