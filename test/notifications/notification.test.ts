import { describe, expect, it } from 'vitest';
import {
  maskAccountNumbers,
  notificationOf,
  signWebhook,
  verifyWebhook,
} from '../../lib/notifications/index.js';

describe('a notification says only what its named fields say', () => {
  it('cuts any run of 6 or more digits that stands alone to its last 4', () => {
    expect(maskAccountNumbers('to 0123456789 on 2026-03-02, ref 12345, acct:0123456789')).toBe(
      'to ******6789 on 2026-03-02, ref 12345, acct:******6789',
    );
  });

  it('keeps an id whose letters surround a run of digits whole, so the link and the approve command work', () => {
    const ulid = '01KJPRZB007101KM56HKRNE9AK';
    const uuid = '5a4db0c0-0000-4000-800d-000000000003';
    const notification = notificationOf('Approval Requested', {
      version: '1',
      eventId: `approval:payout:${ulid}:requested`,
      kind: 'payout',
      id: ulid,
      amountKobo: 2_500_000,
      currency: 'NGN',
      requestedBy: { id: 'alice', kind: 'user' },
      link: { path: `/payouts/${ulid}`, approveCommand: `npx payouts payouts approve ${ulid}` },
      occurredAt: '2026-03-02T09:00:00.000Z',
    });
    expect(notification?.fields).toMatchObject({
      link: `/payouts/${ulid}`,
      approve: `npx payouts payouts approve ${ulid}`,
    });
    expect(maskAccountNumbers(`/bulk-payout-items/${uuid}`)).toBe(`/bulk-payout-items/${uuid}`);
  });

  it('never copies a statement finding’s free text, where a provider record may name an account', () => {
    const notification = notificationOf('Statement Mismatch', {
      eventId: 'statement:2026-03-02:amount_mismatch:tx-1',
      date: '2026-03-02',
      kind: 'amount_mismatch',
      amountKobo: 250_000,
      payoutId: 'p-1',
      detail: 'paid to 0123456789 (Ada Obi)',
    });
    expect(notification?.subject).toBe('Statement mismatch 2026-03-02: amount_mismatch');
    expect(notification?.fields).toMatchObject({ amount: 'NGN 2,500.00', link: '/statements/2026-03-02' });
    expect(JSON.stringify(notification)).not.toMatch(/0123456789|Ada Obi/);
  });

  it('masks an id that is an account number, in the subject as in the text', () => {
    const notification = notificationOf('Payout Needs Review', {
      eventId: '0123456789:3',
      payoutId: '0123456789',
      amountKobo: 100,
    });
    const { subject, text, fields } = notification ?? {};
    expect(JSON.stringify({ subject, text, fields })).not.toContain('0123456789');
    expect(notification?.fields.instruction).toBe('Payout ******6789');
  });

  it('sends nothing for an event it does not know or cannot read', () => {
    expect(notificationOf('Payout Succeeded', { eventId: 'x' })).toBeUndefined();
    expect(notificationOf('Approval Requested', { eventId: 'x' })).toBeUndefined();
  });
});

describe('the webhook signature', () => {
  const key = 'k'.repeat(32);
  const body = '{"text":"Approval needed"}';

  it('verifies a body signed now, and refuses it changed, re-signed with another key, or signed too long ago', () => {
    const now = 1_767_225_600;
    const signature = signWebhook(key, now, body);
    expect(verifyWebhook(key, { timestamp: String(now), signature }, body, now + 10)).toBe(true);
    expect(verifyWebhook(key, { timestamp: String(now), signature }, `${body} `, now)).toBe(false);
    expect(verifyWebhook('x'.repeat(32), { timestamp: String(now), signature }, body, now)).toBe(false);
    expect(verifyWebhook(key, { timestamp: String(now), signature }, body, now + 301)).toBe(false);
    expect(verifyWebhook(key, { timestamp: undefined, signature }, body, now)).toBe(false);
  });
});
