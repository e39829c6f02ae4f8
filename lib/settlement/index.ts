/**
 * Instant settlement: a settlement policy decides whether and how much of a provider settlement is paid out
 * to the merchant's bank account; three triggers (event, ops API, poll) share one idempotent path. The service
 * (`settlement-service.ts`) decides one settlement, finding it with `settlement-lookup.ts` and polling with
 * `settlement-poller.ts` (who sends the payout: `payout-sender.ts`); it depends on the decisions' port
 * (`SettlementDecisionStore`, decision-store.ts), which the table implements (store/dynamodb-decision-store.ts) and,
 * for unit tests only, memory (store/in-memory-decision-store.ts, imported by no Lambda).
 *
 * @example
 * const policy = settlementPolicyFromEnv(process.env);
 * const service = policy && new SettlementService({ engine, provider, store: new DynamoDbSettlementDecisionStore(client, table), policy });
 */
export * from './config.js';
export * from './decision-store.js';
export * from './errors.js';
export * from './model.js';
export * from './payout-sender.js';
export * from './policy.js';
export * from './settlement-lookup.js';
export * from './settlement-poller.js';
export * from './settlement-service.js';
export { DynamoDbSettlementDecisionStore, settlementKeys } from './store/dynamodb-decision-store.js';
