import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { DynamoDbPayoutStore } from '../../lib/payouts/store/dynamodb-payout-store.js';
import { ConcurrentModificationError } from '../../lib/shared/errors.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import {
  bankTransfer,
  command,
  type EngineHarness,
  ledgerEntriesOf,
  startEngineHarness,
} from '../support/engine-harness.js';

/**
 * In AWS two transactions touching one item (the daily-cap counter every claim updates) make one of them
 * fail with `TransactionConflict`. DynamoDB Local serialises transactions instead and never produces it, so
 * this test injects that one answer with a middleware on a real client; every write still goes to DynamoDB Local.
 */
function clientFailingTransactions(
  times: number,
  { after = 0 }: { after?: number } = {},
): { client: DynamoDBClient; injected: () => number } {
  const client = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
  let injected = 0;
  let passed = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && passed < after) passed++;
      else if (context.commandName === 'TransactWriteItemsCommand' && injected < times) {
        injected++;
        throw new TransactionCanceledException({
          message:
            'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, None, TransactionConflict]',
          $metadata: {},
          CancellationReasons: [
            { Code: 'None' },
            { Code: 'None' },
            { Code: 'None' },
            { Code: 'TransactionConflict' },
          ],
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'injectTransactionConflict' },
  );
  return { client, injected: () => injected };
}

let h: EngineHarness;
beforeAll(async () => {
  h = await startEngineHarness();
});
afterAll(async () => h.close());

describe('a transaction conflict on claim', () => {
  it('is retried, and the payout is still paid exactly once', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(91_000), 'conflict-1'));
    const { client, injected } = clientFailingTransactions(2);
    const engine = h.engineWith({ store: new DynamoDbPayoutStore(client, h.tableName) });
    const result = await engine.submit(payout.id);
    expect(injected()).toBe(2);
    expect(result.kind).toBe('sent');
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
    client.destroy();
  });

  it('gives up after a few tries and leaves the payout pending for the next sweep, having sent nothing', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(92_000), 'conflict-2'));
    const { client } = clientFailingTransactions(100);
    const engine = h.engineWith({ store: new DynamoDbPayoutStore(client, h.tableName) });
    const result = await engine.submit(payout.id);
    expect(result.kind).toBe('skipped');
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Pending);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
    client.destroy();
  });
});

describe('a transaction conflict on recording an outcome that releases the cap', () => {
  // A 429 sends nothing: its outcome puts the payout back to `pending` and releases its cap reservation, in a
  // transaction with the cap counter, which other workers' claims contend for. The claim (the first
  // transaction) goes through; the conflicts hit the recording.
  const rateLimited = () =>
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 1 });
  const capDay = () => calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());

  it("records it once the conflicts pass, though they outlast one store call's retries", async () => {
    const { payout } = await h.engine.create(command(bankTransfer(93_000), 'conflict-3'));
    const capBefore = await h.store.getCapUsage(payout.capKey, capDay());
    // More conflicts than one store call rides out (its first try and four retries), fewer than the recording's.
    const { client, injected } = clientFailingTransactions(6, { after: 1 });
    rateLimited();
    const engine = h.engineWith({ store: new DynamoDbPayoutStore(client, h.tableName) });

    const result = await engine.submit(payout.id);

    expect(injected()).toBe(6);
    expect(result).toMatchObject({ kind: 'sent', outcome: 'not_sent' });
    const after = await h.engine.get(payout.id);
    expect(after).toMatchObject({ status: PayoutStatus.Pending });
    // Its reservation released, it holds no cap day either.
    expect(after?.capDay).toBeUndefined();
    expect(await h.store.getCapUsage(payout.capKey, capDay())).toBe(capBefore);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
    client.destroy();
  });

  it('fails rather than report it recorded when the conflicts never pass, leaving the payout to the reconciler', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(94_000), 'conflict-4'));
    const capBefore = await h.store.getCapUsage(payout.capKey, capDay());
    const { client } = clientFailingTransactions(1_000, { after: 1 });
    rateLimited();
    const engine = h.engineWith({ store: new DynamoDbPayoutStore(client, h.tableName) });

    await expect(engine.submit(payout.id)).rejects.toBeInstanceOf(ConcurrentModificationError);

    // Still claimed, its reservation held: its lease runs out and the reconciler decides it, as for a store
    // that is down. Nothing was sent.
    expect(await h.engine.get(payout.id)).toMatchObject({ status: PayoutStatus.Submitting });
    expect(await h.store.getCapUsage(payout.capKey, capDay())).toBe(capBefore + payout.amountKobo);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(0);
    client.destroy();
  });
});
