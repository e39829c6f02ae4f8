import type { ApprovalSources } from './approvals.js';
import { DynamoDbBulkItemStore } from '../bulk-corrections/store/dynamodb-bulk-item-store.js';
import { DynamoDbPayoutRunStore } from '../payout-runs/run-store.js';
import { DynamoDbRefundStore } from '../refunds/store/dynamodb-refund-store.js';
import { payoutListingOf } from '../runtime/payout-listing.js';
import { recurrencesOf } from '../runtime/recurrences.js';
import type { Runtime } from '../runtime/runtime.js';
import { once } from '../runtime/service-cache.js';

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
