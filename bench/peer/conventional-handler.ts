import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';

/**
 * The cold-start benchmark's third peer (issue 47): the job the project's `payout-requested` does for one
 * "Payout Requested" event (create with idempotency, the daily cap and the audit in one transaction, the pause
 * read, the provider call, the outcome), written the way a team would write it on the conventional stack:
 * Powertools idempotency, Logger and Metrics, `@aws-sdk/lib-dynamodb`, global `fetch`, no schema library.
 * Built with `NodejsFunction`'s defaults by bench/cold-start.ts; the project does not use it.
 *
 * It writes into the bench's table under `PEER#` keys, which no item of the project's uses; its items carry no
 * index attributes. Powertools' idempotency releases its lock when the handler throws, so the payout's id is the
 * event's id: a redelivery after a failed send meets the conditional create instead of paying again.
 */
interface PayoutRequestedEvent {
  readonly id: string;
  readonly 'detail-type': string;
  readonly detail: {
    readonly payout: {
      readonly type: string;
      /** Naira, as the provider takes it. */
      readonly amount: number;
      readonly currency: string;
      readonly narration: string;
      readonly beneficiary: {
        readonly bankCode: string;
        readonly accountNumber: string;
        readonly accountName: string;
      };
    };
  };
}

type Outcome =
  | { readonly payoutId: string; readonly status: 'succeeded'; readonly reference: string }
  | { readonly payoutId: string; readonly status: 'failed'; readonly reason: string }
  | { readonly payoutId: string; readonly status: 'pending'; readonly reason: 'paused' }
  | { readonly payoutId: string; readonly status: 'rejected'; readonly reason: string };

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const tableName = required('TABLE_NAME');
const providerUrl = required('PROVIDER_BASE_URL');
const providerToken = required('PROVIDER_TOKEN');
const maxPayoutKobo = Number(required('MAX_PAYOUT_KOBO'));
const dailyCapKobo = Number(required('DAILY_CAP_KOBO'));
const endpoint = process.env.DYNAMODB_ENDPOINT;

const logger = new Logger({ serviceName: 'payouts' });
const metrics = new Metrics({ namespace: 'Payouts', serviceName: 'payouts' });
const client = new DynamoDBClient(endpoint ? { endpoint } : {});
const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const persistenceStore = new DynamoDBPersistenceLayer({
  tableName: required('IDEMPOTENCY_TABLE_NAME'),
  awsSdkV3Client: client,
});
const idempotency = new IdempotencyConfig({ eventKeyJmesPath: 'id' });

const payoutKey = (payoutId: string) => ({ pk: `PEER#PAYOUT#${payoutId}`, sk: 'PAYOUT' });

function validated(event: PayoutRequestedEvent): PayoutRequestedEvent['detail']['payout'] {
  const payout = event.detail?.payout;
  const beneficiary = payout?.beneficiary;
  if (
    typeof event.id !== 'string' ||
    payout?.type !== 'bank_transfer' ||
    payout.currency !== 'NGN' ||
    !Number.isFinite(payout.amount) ||
    payout.amount <= 0 ||
    typeof payout.narration !== 'string' ||
    !/^\d{3,6}$/.test(beneficiary?.bankCode ?? '') ||
    !/^\d{10}$/.test(beneficiary?.accountNumber ?? '') ||
    typeof beneficiary?.accountName !== 'string'
  )
    throw new Error('invalid Payout Requested event');
  return payout;
}

/** The payout, its audit event and the day's cap counter in one transaction: all three or none. */
async function create(
  payoutId: string,
  payout: PayoutRequestedEvent['detail']['payout'],
  amountKobo: number,
) {
  const now = new Date().toISOString();
  await documents.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName,
            Item: { ...payoutKey(payoutId), status: 'pending', amountKobo, ...payout, createdAt: now },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: tableName,
            Item: { pk: `PEER#PAYOUT#${payoutId}`, sk: 'AUDIT#000001', event: 'created', at: now },
          },
        },
        {
          Update: {
            TableName: tableName,
            // The Lagos day would be the merchant's; UTC keeps the peer plain.
            Key: { pk: `PEER#CAP#${now.slice(0, 10)}`, sk: 'CAP' },
            UpdateExpression: 'ADD totalKobo :amount',
            ConditionExpression: 'attribute_not_exists(totalKobo) OR totalKobo <= :room',
            ExpressionAttributeValues: { ':amount': amountKobo, ':room': dailyCapKobo - amountKobo },
          },
        },
      ],
    }),
  );
}

async function paused(): Promise<boolean> {
  const { Item } = await documents.send(
    new GetCommand({ TableName: tableName, Key: { pk: 'PEER#CONTROL', sk: 'GLOBAL' }, ConsistentRead: true }),
  );
  return Item?.paused === true;
}

async function send(payoutId: string, payout: PayoutRequestedEvent['detail']['payout']) {
  const response = await fetch(`${providerUrl}/settlement/instant/payout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${providerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: payout.amount,
      ...payout.beneficiary,
      narration: payout.narration,
      metadata: { payoutId },
    }),
  });
  const body = (await response.json()) as {
    status?: boolean;
    message?: string;
    data?: { reference?: string };
  };
  return response.ok && body.status === true && body.data?.reference
    ? { ok: true as const, reference: body.data.reference }
    : { ok: false as const, reason: body.message ?? `provider answered ${response.status}` };
}

/** The outcome, only over the state the create left: a second writer cannot overwrite it. */
async function record(payoutId: string, outcome: { status: string; reference?: string; reason?: string }) {
  await documents.send(
    new UpdateCommand({
      TableName: tableName,
      Key: payoutKey(payoutId),
      UpdateExpression: 'SET #status = :status, outcome = :outcome, updatedAt = :now',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': outcome.status,
        ':outcome': outcome,
        ':now': new Date().toISOString(),
        ':pending': 'pending',
      },
    }),
  );
}

const payOnce = makeIdempotent(
  async (event: PayoutRequestedEvent, _context: Context): Promise<Outcome> => {
    const payout = validated(event);
    const payoutId = event.id;
    logger.appendKeys({ payoutId });
    const amountKobo = Math.round(payout.amount * 100);
    if (amountKobo > maxPayoutKobo) return { payoutId, status: 'rejected', reason: 'above the maximum' };
    try {
      await create(payoutId, payout, amountKobo);
    } catch (error) {
      if (
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[2]?.Code === 'ConditionalCheckFailed'
      ) {
        logger.warn('daily cap reached', { amountKobo });
        metrics.addMetric('PayoutRejected', MetricUnit.Count, 1);
        return { payoutId, status: 'rejected', reason: 'daily cap' };
      }
      throw error;
    }
    logger.info('payout created', { amountKobo });
    if (await paused()) {
      logger.info('payouts are paused; left pending');
      return { payoutId, status: 'pending', reason: 'paused' };
    }
    const sent = await send(payoutId, payout);
    if (sent.ok) {
      await record(payoutId, { status: 'succeeded', reference: sent.reference });
      logger.info('payout succeeded', { reference: sent.reference });
      metrics.addMetric('PayoutSucceeded', MetricUnit.Count, 1);
      return { payoutId, status: 'succeeded', reference: sent.reference };
    }
    await record(payoutId, { status: 'failed', reason: sent.reason });
    logger.error('payout failed', { reason: sent.reason });
    metrics.addMetric('PayoutFailed', MetricUnit.Count, 1);
    return { payoutId, status: 'failed', reason: sent.reason };
  },
  { persistenceStore, config: idempotency },
);

/** What `@logger.injectLambdaContext()` and `@metrics.logMetrics({ captureColdStartMetric: true })` do, without a class. */
export const handler = async (event: PayoutRequestedEvent, context: Context): Promise<Outcome> => {
  logger.refreshSampleRateCalculation();
  logger.addContext(context);
  logger.logEventIfEnabled(event);
  metrics.captureColdStartMetric(context.functionName);
  try {
    return await payOnce(event, context);
  } finally {
    metrics.publishStoredMetrics();
    logger.resetKeys();
  }
};
