import { DynamoDbBulkItemStore } from '../bulk-corrections/index.js';
import { DynamoDbPayoutRunStore } from '../payout-runs/index.js';
import { DynamoDbRefundStore } from '../refunds/index.js';
import { once, payoutListingOf, type Runtime, recurrencesOf } from '../runtime/index.js';
import type { ApprovalSources } from './approvals.js';

/**
 * The approvals queue's listings: each kind's store (or, for recurring payouts, its service, which calls no
 * provider), not the refund and bulk-correction services, which build provider resources the queue never calls.
 */
export function approvalSourcesOf(runtime: Runtime): ApprovalSources {
  return once(runtime, 'approvals', () => ({
    payouts: payoutListingOf(runtime),
    refunds: new DynamoDbRefundStore(runtime.dynamoDb, runtime.tableName),
    recurrences: recurrencesOf(runtime),
    bulkCorrections: new DynamoDbBulkItemStore(runtime.dynamoDb, runtime.tableName),
    payoutRuns: new DynamoDbPayoutRunStore(runtime.dynamoDb, runtime.tableName),
  }));
}
