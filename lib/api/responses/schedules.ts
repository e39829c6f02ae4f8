import { FUTURE_PAGE_MAX, FutureSource } from '../../future-payouts/index.js';
import { ProviderScheduleKind } from '../../provider-schedules/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';
import { BeneficiaryResponseSchema } from './payout.js';

export const ProviderSyncSchema = z.lazy(() =>
  z
    .object({
      lastSyncAt: field.instant,
      scheduled: z.int(),
      recurrent: z.int(),
      truncated: z.boolean().check(z.describe('the page bound stopped the walk before the last page')),
    })
    .check(z.describe('how fresh the copy of the provider side is (synchronised on a schedule)')),
);

/** What the provider wrote, clipped to 100 characters. */
const providerText = z.lazy(() => field.upTo(FIELD_MAXIMA.name));

export const ProviderScheduleEntrySchema = z.lazy(() =>
  z.object({
    kind: z.enum(Object.values(ProviderScheduleKind) as [ProviderScheduleKind, ...ProviderScheduleKind[]]),
    id: providerText,
    status: providerText.check(
      z.describe("the provider's status as it sends it (DISPATCHED, CANCELLED, ...)"),
    ),
    amount: field.kobo,
    charges: field.kobo,
    bankCode: providerText,
    bankName: providerText,
    accountNumber: providerText,
    accountName: z.nullable(providerText),
    narration: z.nullable(providerText),
    startsAt: providerText.check(z.describe('scheduled: its scheduleDate; recurrent: its startDate')),
    endsAt: z.optional(providerText),
    interval: z.optional(providerText),
    transactionId: z.optional(z.nullable(providerText)),
    createdAt: providerText,
    syncedAt: field.instant,
    upcoming: z.boolean().check(z.describe('not cancelled and with a date still ahead')),
    alsoScheduledHere: z
      .boolean()
      .check(z.describe('the same bank account also has an active schedule on our side')),
  }),
);

/** The most schedules one answer holds (`limit`, 1 to this, default 100). */
export const PROVIDER_SCHEDULE_PAGE_MAX = 500;

export const ProviderScheduleViewSchema = z.lazy(() =>
  z.object({
    items: z.array(ProviderScheduleEntrySchema).check(z.maxLength(PROVIDER_SCHEDULE_PAGE_MAX)),
    bothSides: z.int().check(z.describe('how many items are also scheduled here')),
    sync: z.optional(ProviderSyncSchema),
  }),
);

export const FutureMovementViewSchema = z.lazy(() =>
  z.object({
    from: field.instant,
    to: field.instant,
    items: z
      .array(
        z.object({
          source: z.enum(Object.values(FutureSource) as [FutureSource, ...FutureSource[]]),
          id: field.idText.check(z.describe("our payout or recurrence id, or the provider's record id")),
          at: field.instant,
          amountKobo: field.kobo,
          type: z.optional(field.wordText),
          narration: z.nullable(field.upTo(FIELD_MAXIMA.name)),
          beneficiary: z.nullable(BeneficiaryResponseSchema),
          detail: z.optional(
            field.wordText.check(z.describe("the occurrence's local date, or the provider's interval")),
          ),
          bothSides: z.boolean().check(z.describe('the same bank account has money planned on both sides')),
          awaitsApproval: z
            .boolean()
            .check(z.describe('no money moves until a second person approves (never on the provider side)')),
        }),
      )
      .check(
        z.maxLength(FUTURE_PAGE_MAX),
        z.describe(
          `at most \`limit\` (1 to ${FUTURE_PAGE_MAX}, default ${FUTURE_PAGE_MAX}) movements; the rest with \`nextCursor\``,
        ),
      ),
    nextCursor: z.optional(
      field
        .upTo(FIELD_MAXIMA.cursor)
        .check(z.describe('pass as `cursor` (with the same `days`) for the next movements')),
    ),
    bothSides: z.int().check(z.describe('movements in the whole window (every page) planned on both sides')),
    providerSync: z.optional(ProviderSyncSchema),
    truncated: z.boolean().check(z.describe('a bound stopped a walk, so the list may be incomplete')),
  }),
);
