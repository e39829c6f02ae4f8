import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';

/**
 * The peer to beat in the cold-start benchmark: an instant payout "built the common way", i.e. Powertools
 * idempotency around a plain HTTP call to the provider. It is not used by the project: its idempotency
 * releases the lock when the call throws, so a provider timeout would resend the payout (see STYLE.md).
 *
 * Given a `settlementId`, it first checks the settlement against the provider's listing (the 10 newest, as
 * SettlementService's first look does) and pays the amount listed there: the peer of the settlement handler,
 * which never takes an event's word for a settlement, in the same common way.
 */
interface PayoutEvent {
  readonly idempotencyKey: string;
  readonly amount?: number;
  readonly settlementId?: string;
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
  readonly narration: string;
}

interface ListedSettlement {
  readonly id: string;
  readonly amount: number;
  readonly status: string;
  readonly category: string;
}

const baseUrl = process.env.PROVIDER_BASE_URL ?? '';
const token = process.env.PROVIDER_TOKEN ?? '';
const endpoint = process.env.DYNAMODB_ENDPOINT;

const persistenceStore = new DynamoDBPersistenceLayer({
  tableName: process.env.IDEMPOTENCY_TABLE_NAME ?? 'idempotency',
  clientConfig: endpoint ? { endpoint, region: process.env.AWS_REGION ?? 'us-east-1' } : {},
});

const config = new IdempotencyConfig({ eventKeyJmesPath: 'idempotencyKey' });

async function listedAmount(settlementId: string): Promise<number> {
  const response = await fetch(`${baseUrl}/settlement?page=1&perPage=10`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`provider answered ${response.status}`);
  const body = (await response.json()) as { data?: { settlements?: ListedSettlement[] } };
  const settlement = body.data?.settlements?.find((listed) => listed.id === settlementId);
  if (settlement?.status !== 'SUCCESSFUL' || settlement.category !== 'MERCHANT_SETTLEMENT')
    throw new Error(`settlement ${settlementId} is not a successful merchant settlement the provider lists`);
  return settlement.amount;
}

export const handler = makeIdempotent(
  async (event: PayoutEvent, _context: Context) => {
    const amount = event.settlementId ? await listedAmount(event.settlementId) : event.amount;
    const response = await fetch(`${baseUrl}/settlement/instant/payout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        amount,
        bankCode: event.bankCode,
        accountNumber: event.accountNumber,
        accountName: event.accountName,
        narration: event.narration,
        metadata: {
          idempotencyKey: event.idempotencyKey,
          ...(event.settlementId && { settlementId: event.settlementId }),
        },
      }),
    });
    if (!response.ok) throw new Error(`provider answered ${response.status}`);
    return (await response.json()) as unknown;
  },
  { persistenceStore, config },
);
