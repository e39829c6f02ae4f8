import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { runDueSweep } from '../../lib/jobs/scheduled.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import type { EngineConfig } from '../../lib/payouts/config.js';
import { type PayoutSweeper, payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { RecurrenceConfig } from '../../lib/recurrence/context.js';
import { RecurrenceService } from '../../lib/recurrence/recurrence-service.js';
import type { CreateRecurrenceRequest } from '../../lib/recurrence/schemas.js';
import { DynamoDbRecurrenceStore } from '../../lib/recurrence/store/dynamodb-recurrence-store.js';
import { RefundService } from '../../lib/refunds/refund-service.js';
import { DynamoDbRefundStore } from '../../lib/refunds/store/dynamodb-refund-store.js';
import { type EngineHarness, startEngineHarness } from '../support/engine-harness.js';

export interface RecurrenceHarness extends EngineHarness {
  readonly recurrences: RecurrenceService;
  readonly recurrenceStore: DynamoDbRecurrenceStore;
  readonly refunds: RefundService;
  /** One tick exactly as the every-minute schedule runs it (`runDueSweep`), with a refund service on the same table. */
  tick(): Promise<{
    recurrences: Awaited<ReturnType<RecurrenceService['sweep']>>;
    engine: Awaited<ReturnType<PayoutSweeper['sweep']>>;
  }>;
}

/** The engine harness (DynamoDB Local, sandbox, manual clock) plus the recurrence service over the same table. */
export async function startRecurrenceHarness(
  engineConfig: Partial<EngineConfig> = {},
  config: Partial<RecurrenceConfig> = {},
): Promise<RecurrenceHarness> {
  const h = await startEngineHarness(engineConfig);
  const dynamoDb = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
  const recurrenceStore = new DynamoDbRecurrenceStore(dynamoDb, h.tableName);
  const recurrences = new RecurrenceService({
    store: recurrenceStore,
    payouts: h.engine,
    limits: h.engine.ctx.config,
    clock: h.clock,
    logger: h.logger,
    config,
  });
  const refunds = new RefundService({
    store: new DynamoDbRefundStore(dynamoDb, h.tableName),
    provider: h.client,
    clock: h.clock,
    logger: h.logger,
  });
  return {
    ...h,
    recurrences,
    recurrenceStore,
    refunds,
    async tick() {
      const report = await runDueSweep({ engine: payoutSweeper(h.engine), recurrences, refunds }, 60_000);
      return { recurrences: report.recurrences, engine: report.payouts };
    },
    async close() {
      dynamoDb.destroy();
      await h.close();
    },
  };
}

/** A daily bank transfer of 450.00 naira at 10:00 Lagos time (09:00Z), from the harness's first day. */
export function dailyRule(overrides: Partial<CreateRecurrenceRequest> = {}): CreateRecurrenceRequest {
  return {
    type: 'bank_transfer',
    amount: 45_000,
    currency: 'NGN',
    narration: 'staff allowance',
    beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Staff' },
    interval: 'daily',
    startDate: '2026-03-02',
    timeOfDay: '10:00',
    ...overrides,
  } as CreateRecurrenceRequest;
}
