/**
 * The month-end's seed: N scheduled payouts all due at one instant, written before the clock starts (not timed).
 * The first is created through the engine (its validation, its idempotency key item, its audit); the others are
 * copies of it with their own ids and idempotency keys, encoded by the store's own codec (`toPayoutItem`) and
 * written 25 to a BatchWriteItem, because 100,000 engine creations would take longer than the drain itself.
 */
import type { Payout } from '../lib/payouts/model.js';
import type { PayoutEngine } from '../lib/payouts/payout-engine.js';
import { toPayoutItem } from '../lib/payouts/store/item-codec.js';
import { BatchWriteCommand, type DocumentClient } from '../lib/shared/document-client.js';
import { ulid } from '../lib/shared/ids.js';
import { bankTransfer, createCommand, forEachConcurrently } from './support.js';

const BATCH = 25;
const BATCHES_IN_FLIGHT = 8;
const MAX_BATCH_ATTEMPTS = 20;

/** Seeds `count` scheduled payouts due at `dueAt`; answers their ids. */
export async function seedMonthEnd(options: {
  engine: PayoutEngine;
  doc: DocumentClient;
  tableName: string;
  count: number;
  dueAt: string;
}): Promise<string[]> {
  const { payout: template } = await options.engine.create(
    createCommand(bankTransfer({ scheduleAt: options.dueAt }), 'month-end-0'),
  );
  if (template.status !== 'scheduled') throw new Error(`the template payout is ${template.status}`);
  const ids = [template.id];
  const batches = Math.ceil((options.count - 1) / BATCH);
  const copies: Payout[][] = Array.from({ length: batches }, (_, batch) => {
    const items: Payout[] = [];
    for (let i = 1 + batch * BATCH; i < Math.min(options.count, 1 + (batch + 1) * BATCH); i++) {
      const payout: Payout = {
        ...template,
        id: ulid(new Date(template.createdAt)),
        idempotencyKey: `month-end-${i}`,
      };
      ids.push(payout.id);
      items.push(payout);
    }
    return items;
  });
  await forEachConcurrently(batches, BATCHES_IN_FLIGHT, async (batch) => {
    let pending = (copies[batch] ?? []).map((payout) => ({ PutRequest: { Item: toPayoutItem(payout) } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error('BatchWriteItem kept returning unprocessed items');
      const result = await options.doc.send(
        new BatchWriteCommand({ RequestItems: { [options.tableName]: pending } }),
      );
      pending = (result.UnprocessedItems?.[options.tableName] ?? []) as typeof pending;
    }
  });
  return ids;
}
