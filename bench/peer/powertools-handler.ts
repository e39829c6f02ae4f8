import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';

/**
 * The peer to beat in the cold-start benchmark: an instant payout "built the common way", i.e. Powertools
 * idempotency around a plain HTTP call to the provider. It is not used by the project: its idempotency
 * releases the lock when the call throws, so a provider timeout would resend the payout (see STYLE.md).
 */
interface PayoutEvent {
  readonly idempotencyKey: string;
  readonly amount: number;
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
  readonly narration: string;
}

const baseUrl = process.env.PROVIDER_BASE_URL ?? '';
const token = process.env.PROVIDER_TOKEN ?? '';
const endpoint = process.env.DYNAMODB_ENDPOINT;

const persistenceStore = new DynamoDBPersistenceLayer({
  tableName: process.env.IDEMPOTENCY_TABLE_NAME ?? 'idempotency',
  clientConfig: endpoint ? { endpoint, region: process.env.AWS_REGION ?? 'us-east-1' } : {},
});

const config = new IdempotencyConfig({ eventKeyJmesPath: 'idempotencyKey' });

export const handler = makeIdempotent(
  async (event: PayoutEvent, _context: Context) => {
    const response = await fetch(`${baseUrl}/settlement/instant/payout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        amount: event.amount,
        bankCode: event.bankCode,
        accountNumber: event.accountNumber,
        accountName: event.accountName,
        narration: event.narration,
        metadata: { idempotencyKey: event.idempotencyKey },
      }),
    });
    if (!response.ok) throw new Error(`provider answered ${response.status}`);
    return (await response.json()) as unknown;
  },
  { persistenceStore, config },
);
