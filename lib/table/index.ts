/**
 * The single table's design, shared by every room that keeps items in it: key shapes, the global secondary
 * indexes and what each projects (`createTableInput`, which infra and DynamoDB Local both build from).
 */
export * from './table-design.js';
