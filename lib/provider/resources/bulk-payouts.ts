import type * as z from 'zod/mini';
import { assertAmount } from '../amounts.js';
import { PROVIDER_PATHS } from '../contract.js';
import { ProviderResource, providerMethod } from '../resource.js';
import { type BulkPayoutItemRecord, bulkPayoutItemUpdateData } from '../schemas/bulk-payout.js';
import type { Page, RequestOptions } from '../types.js';

export type BulkPayoutItemUpdateData = z.infer<typeof bulkPayoutItemUpdateData>;

/** Fields to change on one bulk payout item; `amount` is whole naira. Omitted fields are left as they are. */
export type BulkPayoutItemUpdateParams = {
  bulkPayoutItemId: string;
  amount?: number;
  bankCode?: string;
  accountNumber?: string;
  narration?: string;
  phoneNumber?: string;
};

const updateItem = providerMethod({
  method: 'PATCH',
  path: PROVIDER_PATHS.bulkPayoutItem,
  body: (params: BulkPayoutItemUpdateParams) => {
    // The amount is optional here: checked when given, before anything is sent.
    if (params.amount !== undefined) assertAmount(params.amount, 'whole-naira');
    const body: Record<string, unknown> = { bulkPayoutItemId: params.bulkPayoutItemId };
    for (const key of ['amount', 'bankCode', 'accountNumber', 'narration', 'phoneNumber'] as const) {
      if (params[key] !== undefined) body[key] = params[key];
    }
    return body;
  },
  items: 'records',
  data: bulkPayoutItemUpdateData,
});

/** Corrections to bulk payouts. */
export class BulkPayouts extends ProviderResource {
  /**
   * Updates one item (PATCH /payout/bulk/item) and answers the validation records of every item of its
   * bulk payout as a page. Never retried once sent.
   *
   * @example const { items } = await client.bulkPayouts.updateItem({ bulkPayoutItemId, accountNumber: '0123456789' });
   */
  updateItem(
    params: BulkPayoutItemUpdateParams,
    options?: RequestOptions,
  ): Promise<Page<BulkPayoutItemRecord, BulkPayoutItemUpdateData>> {
    return this.send(updateItem, params, options);
  }
}
