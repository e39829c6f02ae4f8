import { payoutRequestVariants } from '../payouts/index.js';
import { FIELD_MAXIMA } from '../shared/field-limits.js';
import * as z from '../shared/zod.js';
import { isRuleDate, isTimeZone, RULE_DATES } from './rules.js';

/** The zone used when a recurring payout names none: the merchants' own. */
export const DEFAULT_TIME_ZONE = 'Africa/Lagos';

/** A rule's dates stay within RULE_DATES: refused here (400 naming the field), never stored to fail every read. */
const localDate = z
  .string()
  .check(
    z.refine(isRuleDate, `must be a calendar date YYYY-MM-DD from ${RULE_DATES.first} to ${RULE_DATES.last}`),
  );

/** Fields of a recurrence rule, added to the payout fields of `POST /recurring-payouts`. */
export const recurrenceFields = {
  interval: z.enum(['daily', 'weekly', 'monthly']),
  /** Every n-th day, week or month (default 1). */
  every: z.optional(z.int().check(z.gte(1), z.lte(366))),
  startDate: localDate,
  /** Last date an occurrence may fall on, inclusive. */
  endDate: z.optional(localDate),
  maxOccurrences: z.optional(z.int().check(z.gte(1), z.lte(10_000))),
  /** Local time `HH:MM`, 24 h. */
  timeOfDay: z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM (00:00 to 23:59)')),
  /** IANA time zone (default Africa/Lagos). */
  timeZone: z.optional(
    z
      .string()
      .check(
        z.maxLength(FIELD_MAXIMA.word, `must be at most ${FIELD_MAXIMA.word} characters`),
        z.refine(isTimeZone, 'must be an IANA time zone, e.g. Africa/Lagos'),
      ),
  ),
};
export const RECURRENCE_FIELD_NAMES = Object.keys(recurrenceFields);

const noTime = { scheduleAt: true } as const;

/**
 * `POST /recurring-payouts`: a payout of any kind (as `POST /payouts`, without `scheduleAt`) plus its rule. Built on
 * first use, as the payout request it extends is (lib/payouts/schemas.ts).
 */
export const CreateRecurrenceRequestSchema = z.lazy(() => {
  const [bankTransfer, walletTransfer, walletCredit, walletDebit, childDebit, childBankTransfer] =
    payoutRequestVariants();
  return z.discriminatedUnion('type', [
    z.extend(z.omit(bankTransfer, noTime), recurrenceFields),
    z.extend(z.omit(walletTransfer, noTime), recurrenceFields),
    z.extend(z.omit(walletCredit, noTime), recurrenceFields),
    z.extend(z.omit(walletDebit, noTime), recurrenceFields),
    z.extend(z.omit(childDebit, noTime), recurrenceFields),
    z.extend(z.omit(childBankTransfer, noTime), recurrenceFields),
  ]);
});
export type CreateRecurrenceRequest = z.infer<typeof CreateRecurrenceRequestSchema>;
