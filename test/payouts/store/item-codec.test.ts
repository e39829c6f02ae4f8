import { describe, expect, it } from 'vitest';
import type { Payout } from '../../../lib/payouts/model.js';
import { fromPayoutItem, toPayoutItem } from '../../../lib/payouts/store/item-codec.js';
import { storedPayout } from './stored-payout.js';

const payout: Payout = storedPayout('01KJPRZB00E240SR7N3NE22ESV', { idempotencyKey: 'k-1' });

describe('payout item codec', () => {
  it('does not store the id (the key holds it), the currency or an empty metadata map, and reads them back', () => {
    const item = toPayoutItem(payout);

    expect(item.pk).toBe(`PAYOUT#${payout.id}`);
    expect(item).not.toHaveProperty('id');
    expect(item).not.toHaveProperty('currency');
    expect(item).not.toHaveProperty('metadata');
    expect(fromPayoutItem(item)).toEqual(payout);
  });

  it('stores metadata that has entries', () => {
    const tagged: Payout = { ...payout, metadata: { invoice: 'INV-7', batch: 3 } };
    const item = toPayoutItem(tagged);

    // Under its stored name, with the client's own keys as they are.
    expect(item.md).toEqual({ invoice: 'INV-7', batch: 3 });
    expect(fromPayoutItem(item)).toEqual(tagged);
  });

  it('stores attributes under short names, keeping status, version and the index keys as they are', () => {
    const item = toPayoutItem({
      ...payout,
      receipt: { transactionId: 't-1', status: 'SUCCESS', chargesKobo: 0 },
    });

    expect(item).toMatchObject({
      status: 'pending',
      version: 1,
      am: 15_000,
      rc: { tx: 't-1', st: 'SUCCESS' },
    });
    expect(item).not.toHaveProperty('amountKobo');
    expect(item).toHaveProperty('gsi1pk', 'PAYOUT#STATUS#pending');
  });

  it('reads an item stored in long names before', () => {
    const { id: _keySays, currency: _onlyNgn, metadata: _empty, ...fields } = payout;
    const { pk, sk, gsi1pk, gsi1sk } = toPayoutItem(payout);

    expect(fromPayoutItem({ pk, sk, gsi1pk, gsi1sk, entity: 'payout', ...fields })).toEqual(payout);
  });

  it('reads an item written before, which holds the id, the currency and an empty metadata map', () => {
    const older = { ...toPayoutItem(payout), id: payout.id, currency: 'NGN', metadata: {} };

    expect(fromPayoutItem(older)).toEqual(payout);
  });

  it('still refuses an item whose stored currency is not NGN', () => {
    const older = { ...toPayoutItem(payout), currency: 'USD' };

    expect(() => fromPayoutItem(older)).toThrow(/currency/);
  });
});
