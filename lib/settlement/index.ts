/**
 * Instant settlement: a settlement policy decides whether and how much of a provider settlement is paid out
 * to the merchant's bank account; three triggers (event, ops API, poll) share one idempotent path.
 *
 * @example
 * const policy = settlementPolicyFromEnv(process.env);
 * const service = policy && new SettlementService({ engine, provider, store: new DynamoDbSettlementDecisionStore(client, table), policy });
 */
export * from './config.js';
export * from './decision-store.js';
export * from './errors.js';
export * from './model.js';
export * from './policy.js';
export * from './settlement-service.js';
