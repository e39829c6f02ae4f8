import { InvalidCursorError } from './errors.js';
import type * as z from './zod.js';

/** The longest cursor accepted; the API's query schemas say the same. */
export const MAX_CURSOR_LENGTH = 2048;

/**
 * A listing cursor: the position after one page (a DynamoDB `LastEvaluatedKey` and whatever else the listing
 * needs), as base64url JSON. It is opaque to clients but not secret: it only says where the next page starts
 * in a listing the caller may read anyway.
 *
 * @example const cursor = encodeCursor({ key: page.LastEvaluatedKey });
 */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * Reads a cursor back against the exact shape its listing issues, or undefined when it is not one (bad
 * base64url, not JSON, a missing, extra or ill-formed attribute): the caller answers 400 naming `cursor`.
 * A tampered cursor must never reach DynamoDB, which would answer a ValidationException (a 500).
 *
 * @example const position = decodeCursor(query.cursor, PayoutCursorSchema);
 */
export function decodeCursor<T extends z.ZodMiniType>(cursor: string, shape: T): z.infer<T> | undefined {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = shape.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The cursor a client sent with a listing, read back against the shape the listing issues: undefined when none
 * was sent, InvalidCursorError (a 400 naming `cursor`) when it is not one of the listing's.
 *
 * @example const after = readCursor(query.cursor, AuditCursorSchema);
 */
export function readCursor<T extends z.ZodMiniType>(
  cursor: string | undefined,
  shape: T,
): z.infer<T> | undefined {
  if (cursor === undefined) return undefined;
  const position = decodeCursor(cursor, shape);
  if (position === undefined) throw new InvalidCursorError('is not a cursor of this listing');
  return position;
}

/** True for the error DynamoDB answers when a query's `ExclusiveStartKey` does not fit the query. */
export function isStartKeyRejection(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException';
}
