/**
 * Hand-written request validation (CONTRACT.md "Errors", "Bodies the interface does not show").
 * Every failure is a 400 whose message names the field. Amounts come back as integer kobo.
 */
import { MoneyError, toKobo } from '../money.js';
import { LIMITS, PAGINATION } from './contract.js';
import { badRequest } from './errors.js';
import type { JsonObject } from './state.js';

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body of a POST/PATCH: must be a JSON object. */
export function objectBody(body: unknown): JsonObject {
  if (!isJsonObject(body)) throw badRequest('request body must be a JSON object');
  return body;
}

/** A required string field, optionally bounded and patterned. */
export function requiredString(
  body: JsonObject,
  field: string,
  rule: { min?: number; max?: number; pattern?: RegExp; describe?: string } = {},
): string {
  const value = body[field];
  if (value === undefined || value === null) throw badRequest(`${field} is required`);
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
  return checkString(value, field, rule);
}

/** An optional string field: undefined when absent. */
export function optionalString(
  body: JsonObject,
  field: string,
  rule: { min?: number; max?: number; pattern?: RegExp; describe?: string } = {},
): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
  return checkString(value, field, rule);
}

/** An optional whole-number field of at least `min`: undefined when absent. */
export function optionalInteger(body: JsonObject, field: string, min: number): number | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value;
  throw badRequest(`${field} must be an integer >= ${min}`);
}

function checkString(
  value: string,
  field: string,
  rule: { min?: number; max?: number; pattern?: RegExp; describe?: string },
): string {
  const min = rule.min ?? 1;
  if (value.length < min)
    throw badRequest(min === 1 ? `${field} must not be empty` : `${field} is too short`);
  if (rule.max !== undefined && value.length > rule.max) {
    throw badRequest(`${field} must be at most ${rule.max} characters`);
  }
  if (rule.pattern && !rule.pattern.test(value)) {
    throw badRequest(`${field} must be ${rule.describe ?? `in the form ${rule.pattern}`}`);
  }
  return value;
}

export const narration = (body: JsonObject): string =>
  requiredString(body, 'narration', { max: LIMITS.narrationMaxLength });

export const accountNumber = (body: JsonObject): string =>
  requiredString(body, 'accountNumber', {
    pattern: LIMITS.accountNumberPattern,
    describe: 'exactly 10 digits',
  });

export const bankCode = (body: JsonObject): string =>
  requiredString(body, 'bankCode', { pattern: LIMITS.bankCodePattern, describe: '3 to 6 digits' });

export const accountName = (body: JsonObject): string => requiredString(body, 'accountName', { max: 100 });

/** Optional `metadata`: a JSON object of at most 20 keys, default `{}`. */
export function metadata(body: JsonObject): JsonObject {
  const value = body.metadata;
  if (value === undefined) return {};
  if (!isJsonObject(value)) throw badRequest('metadata must be a JSON object');
  if (Object.keys(value).length > LIMITS.metadataMaxKeys) {
    throw badRequest(`metadata must have at most ${LIMITS.metadataMaxKeys} keys`);
  }
  return value;
}

function amountNumber(value: unknown, field: string): number {
  if (value === undefined || value === null) throw badRequest(`${field} is required`);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest(`${field} must be a number`);
  if (value <= 0) throw badRequest(`${field} must be greater than 0`);
  return value;
}

/** An amount the interface types as integer (whole naira); returns kobo. */
export function integerAmount(value: unknown, field = 'amount'): number {
  const naira = amountNumber(value, field);
  if (!Number.isInteger(naira)) throw badRequest(`${field} must be an integer number of naira`);
  return toKoboOr400(naira, field);
}

/** An amount in naira with at most two decimals; returns kobo. */
export function decimalAmount(value: unknown, field = 'amount'): number {
  return toKoboOr400(amountNumber(value, field), field);
}

function toKoboOr400(naira: number, field: string): number {
  try {
    return toKobo(naira);
  } catch (error) {
    if (error instanceof MoneyError) throw badRequest(`${field}: ${error.message}`);
    throw error;
  }
}

/** `page` and `perPage` of every list (1-based, default 1 and 20, perPage at most 100). */
export function pagination(query: URLSearchParams): { page: number; perPage: number } {
  return {
    page: queryInteger(query, 'page', PAGINATION.defaultPage, 1, Number.MAX_SAFE_INTEGER),
    perPage: queryInteger(query, 'perPage', PAGINATION.defaultPerPage, 1, PAGINATION.maxPerPage),
  };
}

function queryInteger(
  query: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw badRequest(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A required, non-empty query parameter. */
export function requiredQuery(query: URLSearchParams, name: string): string {
  const value = query.get(name);
  if (value === null || value === '') throw badRequest(`${name} is required`);
  return value;
}

/** An optional query parameter restricted to a value set. */
export function oneOfQuery<T extends string>(
  query: URLSearchParams,
  name: string,
  values: readonly T[],
): T | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const match = values.find((v) => v === raw);
  if (match === undefined) throw badRequest(`${name} must be one of ${values.join(', ')}`);
  return match;
}

/** An optional ISO 8601 timestamp query parameter. */
export function isoQuery(query: URLSearchParams, name: string): Date | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const time = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(time)) throw badRequest(`${name} must be an ISO 8601 timestamp`);
  return new Date(time);
}

/** An optional Unix-epoch-milliseconds query parameter. */
export function epochMsQuery(query: URLSearchParams, name: string): Date | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(`${name} must be Unix epoch milliseconds`);
  return new Date(Number(raw));
}
