import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { DynamoDbPayoutStore } from '../../lib/payouts/store/dynamodb-payout-store.js';
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
function clientFailingTransactions(times: number): { client: DynamoDBClient; injected: () => number } {
  const client = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
  let injected = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && injected < times) {
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
