import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';

/**
 * The longest each field of an event may be: EventBridge refuses an entry over 256 KB, so the translation clips
 * every text to these and the largest event is known (test/infra/message-sizes.test.ts). The same maxima bound
 * the ops API's answers (lib/shared/field-limits.ts).
 */
export const DOMAIN_EVENT_MAXIMA = {
  id: FIELD_MAXIMA.id,
  word: FIELD_MAXIMA.word,
  text: FIELD_MAXIMA.message,
  items: FIELD_MAXIMA.items,
} as const;

/** A text of at most `max` characters, as every event detail declares its strings. */
export const upTo = (max: number) => z.string().check(z.maxLength(max));
/** Integer kobo, within what JSON carries exactly. */
export const kobo = z.int().check(z.gte(-Number.MAX_SAFE_INTEGER), z.lte(Number.MAX_SAFE_INTEGER));
