import * as z from 'zod/mini';

// Each schema is built on first use (z.lazy): every function loads all the provider's resources but parses few of
// them, and building them at load was a large part of a cold start's zod work (docs/cold-start.md).
import { amount, calendarDate, timestamp } from './common.js';
import { listData, sizePagination } from './pagination.js';

export const SettlementCategory = {
  Merchant: 'MERCHANT_SETTLEMENT',
  Subaccount: 'SUBACCOUNT_SETTLEMENT',
  Instant: 'INSTANT_SETTLEMENT',
  Card: 'CARD_SETTLEMENT',
} as const;
export type SettlementCategory = (typeof SettlementCategory)[keyof typeof SettlementCategory];

/** Item of `data.settlements`. `subaccountId` and `subaccount` only on SUBACCOUNT_SETTLEMENT. */
export const settlementSchema = z.lazy(() =>
  z
    .looseObject({
      id: z.string(),
      amount,
      status: z.string(),
      date: calendarDate,
      charges: amount,
      category: z.string(),
      createdAt: timestamp,
      subaccountId: z.optional(z.string()),
      subaccount: z.optional(z.looseObject({ id: z.string(), name: z.string() })),
    })
    .check(
      z.refine((s) => s.category === SettlementCategory.Subaccount || s.subaccount === undefined, {
        message: 'expected subaccount only on SUBACCOUNT_SETTLEMENT',
        path: ['subaccount'],
      }),
      z.refine((s) => s.category !== SettlementCategory.Subaccount || s.subaccount !== undefined, {
        message: 'expected object on SUBACCOUNT_SETTLEMENT, received undefined',
        path: ['subaccount'],
      }),
    ),
);
export type Settlement = z.infer<typeof settlementSchema>;

export const settlementListData = listData(sizePagination, 'settlements', settlementSchema);
