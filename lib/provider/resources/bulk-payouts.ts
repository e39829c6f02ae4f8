import type * as z from 'zod/mini';
import { assertAmount } from '../amounts.js';
import { PROVIDER_PATHS } from '../contract.js';
import { toPage } from '../pagination.js';
import type { Requester } from '../requester.js';
import { type BulkPayoutItemRecord, bulkPayoutItemUpdateData } from '../schemas/bulk-payout.js';
import { envelope } from '../schemas/envelope.js';
import type { Page, RequestOptions } from '../types.js';

const updateResponse = envelope(bulkPayoutItemUpdateData, 'required');

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

/** Corrections to bulk payouts. */
export class BulkPayouts {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * Updates one item (PATCH /payout/bulk/item) and answers the validation records of every item of its
   * bulk payout as a page. Never retried once sent.
   *
   * @example const { items } = await client.bulkPayouts.updateItem({ bulkPayoutItemId, accountNumber: '0123456789' });
   */
  async updateItem(
    params: BulkPayoutItemUpdateParams,
    options?: RequestOptions,
  ): Promise<Page<BulkPayoutItemRecord, BulkPayoutItemUpdateData>> {
    if (params.amount !== undefined) assertAmount(params.amount, 'whole-naira');
    const body: Record<string, unknown> = { bulkPayoutItemId: params.bulkPayoutItemId };
    for (const key of ['amount', 'bankCode', 'accountNumber', 'narration', 'phoneNumber'] as const) {
      if (params[key] !== undefined) body[key] = params[key];
    }
    const result = await this.#requester.call(
      { method: 'PATCH', path: PROVIDER_PATHS.bulkPayoutItem, body, schema: updateResponse },
      options,
    );
    return toPage(result, result.data.records);
  }
}
