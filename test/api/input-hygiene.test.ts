import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorrectionFieldsSchema } from '../../lib/bulk-corrections/schemas.js';
import { PayoutRequestedDetailSchema } from '../../lib/events/schemas.js';
import { CreateRefundRequestSchema } from '../../lib/refunds/model.js';
import { encodeCursor } from '../../lib/shared/cursor.js';
import { type ApiHarness, bankTransfer, call, type Reply, startApiHarness } from './support/harness.js';

/**
 * No client input reaches a 500: it once did (a metadata key `constructor`, a tampered cursor), and
 * narrations and names took NUL, CR/LF, right-to-left override, zero-width characters and the reconciler's
 * own marker. Each refusal is a 400 naming the field, stores nothing and calls no provider.
 */

let h: ApiHarness;
let n = 0;
beforeAll(async () => {
  h = await startApiHarness();
});
afterAll(async () => h?.close());

const lagosDay = (offsetDays: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Lagos' }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );
const rule = (overrides: Record<string, unknown> = {}) => ({
  ...bankTransfer({ narration: 'weekly wages' }),
  interval: 'weekly',
  startDate: lagosDay(2),
  timeOfDay: '09:00',
  ...overrides,
});

const post = (path: string, body: unknown) =>
  call(h.api, { method: 'POST', path, headers: { 'Idempotency-Key': `hygiene-${++n}` }, body });

function expectRefusal(reply: Reply, path: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(400);
  expect(reply.body.errors.map((e: { path: string }) => e.path)).toContain(path);
}

/** Nothing written and nothing sent, around `act`. */
async function expectNoEffect(act: () => Promise<void>): Promise<void> {
  const items = (await h.items()).length;
  const requests = JSON.stringify(h.sandbox.stats().requests);
  await act();
  expect((await h.items()).length).toBe(items);
  expect(JSON.stringify(h.sandbox.stats().requests)).toBe(requests);
}

const MARKER = 'po_01JD5ZQ8W3K7M9N2P4R6S8T0VX';
const hostileText: Record<string, string> = {
  NUL: 'invoice\u00002041',
  'CR/LF': 'invoice 2041\r\nApproved: yes',
  'right-to-left override': 'invoice \u202E1402 eciovni',
  'zero-width space': 'in\u200Bvoice 2041',
  'the reconciler marker': `invoice ${MARKER}`,
  'the reconciler marker in capitals': `invoice ${MARKER.toUpperCase()}`,
  'the reconciler marker in lower case': `invoice ${MARKER.toLowerCase()}`,
  'the reconciler marker in full-width letters': 'invoice ｐｏ＿01JD5ZQ8W3K7M9N2P4R6S8T0VX',
};

describe('metadata keys that name object members', () => {
  for (const key of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
    it(`refuses the metadata key ${key} on POST /payouts and POST /recurring-payouts with a 400, not a 500`, async () => {
      await expectNoEffect(async () => {
        expectRefusal(await post('/payouts', bankTransfer({ metadata: { [key]: 'x' } })), `metadata.${key}`);
        expectRefusal(
          await post('/recurring-payouts', rule({ metadata: { [key]: 'x' } })),
          `metadata.${key}`,
        );
      });
    });
  }

  it('refuses a body carrying a __proto__ key, which JSON.parse keeps as a plain key', async () => {
    await expectNoEffect(async () => {
      const body = JSON.stringify(bankTransfer()).replace('{', '{"metadata":{"__proto__":{"admin":true}},');
      expectRefusal(await post('/payouts', body), '(body)');
    });
  });

  it('refuses keys that are not plain names, the service’s own keys, and oversized metadata', async () => {
    const bad: Record<string, unknown>[] = [
      { '1st': 'x' },
      { 'a b': 'x' },
      { 'k\u0000': 'x' },
      { payoutId: 'x' },
      { idempotencyKey: 'x' },
      { ['k'.repeat(41)]: 'x' },
      { note: 'a\u202Eb' },
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'x'.repeat(200)])),
    ];
    await expectNoEffect(async () => {
      for (const metadata of bad) {
        const reply = await post('/payouts', bankTransfer({ metadata }));
        expect(reply.status, JSON.stringify(metadata).slice(0, 60)).toBe(400);
        expect(reply.body.errors[0].path).toMatch(/^metadata/);
      }
    });
  });

  it('still accepts plain keys, and a value that names another payout', async () => {
    const reply = await post(
      '/payouts',
      bankTransfer({ metadata: { invoice: 'INV-1', 'ref.previous': MARKER } }),
    );
    expect(reply.status).toBe(201);
    expect(reply.body.metadata).toEqual({ invoice: 'INV-1', 'ref.previous': MARKER });
  });
});

describe('metadata numbers the payout item cannot hold', () => {
  // A bank reference sent as a JSON number (20 digits: no double holds it exactly), 2^53, and numbers DynamoDB
  // refuses: once accepted, each failed the payout's write with a plain Error, a 500.
  const refused: [string, number][] = [
    ['bankRef', JSON.parse('12345678901234567890') as number],
    ['limit', 2 ** 53],
    ['debt', -1e16],
    ['huge', 1e300],
    ['tiny', 1e-200],
  ];
  for (const [key, value] of refused) {
    it(`refuses metadata.${key} = ${value} on POST /payouts and POST /recurring-payouts with a 400, storing nothing`, async () => {
      await expectNoEffect(async () => {
        const reply = await post('/payouts', bankTransfer({ metadata: { invoice: 'INV-1', [key]: value } }));
        expectRefusal(reply, `metadata.${key}`);
        expect(reply.body.errors).toHaveLength(1);
        expect(reply.body.errors[0].message).toContain(String(Number.MAX_SAFE_INTEGER));
        expectRefusal(
          await post('/recurring-payouts', rule({ metadata: { [key]: value } })),
          `metadata.${key}`,
        );
      });
    });
  }

  it('still accepts numbers up to 2^53 - 1 either way, fractions and 0', async () => {
    const metadata = {
      max: Number.MAX_SAFE_INTEGER,
      min: -Number.MAX_SAFE_INTEGER,
      rate: 0.075,
      none: 0,
      small: 1e-130,
    };
    const reply = await post('/payouts', bankTransfer({ metadata }));
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body.metadata).toEqual(metadata);
  });
});

describe('narrations, names and notes', () => {
  for (const [attack, text] of Object.entries(hostileText)) {
    it(`refuses a narration or account name with ${attack} on POST /payouts and POST /recurring-payouts`, async () => {
      await expectNoEffect(async () => {
        expectRefusal(await post('/payouts', bankTransfer({ narration: text.slice(0, 60) })), 'narration');
        expectRefusal(
          await post(
            '/payouts',
            bankTransfer({
              beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: text },
            }),
          ),
          'beneficiary.accountName',
        );
        expectRefusal(await post('/recurring-payouts', rule({ narration: text.slice(0, 60) })), 'narration');
      });
    });

    it(`refuses ${attack} in an event narration, refund notes, a bulk correction, a resolution note and a dead letter's discard reason`, async () => {
      const event = PayoutRequestedDetailSchema.safeParse({
        version: '1',
        payout: bankTransfer({ narration: text.slice(0, 60) }),
      });
      expect(event.success).toBe(false);
      const refund = { transactionId: 'tx-1', amount: 100, customerNote: 'sorry', merchantNote: 'dup' };
      expect(CreateRefundRequestSchema.safeParse({ ...refund, customerNote: text }).success).toBe(false);
      expect(CreateRefundRequestSchema.safeParse({ ...refund, merchantNote: text }).success).toBe(false);
      expect(CorrectionFieldsSchema.safeParse({ narration: text }).success).toBe(false);
      await expectNoEffect(async () => {
        expectRefusal(await post('/refunds', { ...refund, customerNote: text }), 'customerNote');
        expectRefusal(
          await post('/payouts/01JD5ZQ8W3K7M9N2P4R6S8T0VX/resolve', { outcome: 'failed', note: text }),
          'note',
        );
        expectRefusal(await post('/controls/pause', { reason: text }), 'reason');
        expectRefusal(
          await post('/dead-letters/01JD5ZQ8W3K7M9N2P4R6S8T0VX/discard', { reason: text }),
          'reason',
        );
      });
    });
  }

  it('stores a narration NFC-normalised and trimmed, so é is one code point however it was typed', async () => {
    const reply = await post('/payouts', bankTransfer({ narration: '  Caf\u0065\u0301 rent ' }));
    expect(reply.status).toBe(201);
    expect(reply.body.narration).toBe('Caf\u00e9 rent');
  });

  it('still accepts ordinary text in other scripts', async () => {
    const reply = await post(
      '/payouts',
      bankTransfer({
        narration: 'Ọjà rent — March',
        beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Adébáyọ̀ Ọlátúnjí' },
      }),
    );
    expect(reply.status).toBe(201);
  });
});

describe('dates of a recurring payout', () => {
  const dates: [string, Record<string, string>][] = [
    ['startDate', { startDate: '9999-12-31' }],
    ['startDate', { startDate: '9999-12-27', interval: 'daily' }],
    ['startDate', { startDate: '1999-12-31' }],
    ['endDate', { endDate: '3000-01-01' }],
  ];
  for (const [field, overrides] of dates) {
    it(`refuses ${JSON.stringify(overrides)} with a 400 naming ${field}, and stores nothing`, async () => {
      await expectNoEffect(async () => {
        const reply = await post('/recurring-payouts', rule(overrides));
        expectRefusal(reply, field);
        expect(reply.body.errors[0].message).toMatch(/2000-01-01 to 2999-12-31/);
      });
    });
  }

  it('answers a skip of a date no occurrence reaches with a 400, not a 500', async () => {
    const created = await post('/recurring-payouts', rule({ narration: 'far skip' }));
    expect(created.status).toBe(201);
    await expectNoEffect(async () => {
      const skipped = await call(h.api, {
        method: 'POST',
        path: `/recurring-payouts/${created.body.id}/occurrences/9999-12-31/skip`,
        body: {},
      });
      expectRefusal(skipped, 'localDate');
    });
    const read = await call(h.api, { method: 'GET', path: `/recurring-payouts/${created.body.id}` });
    expect(read.status).toBe(200);
  });
});

describe('tampered cursors', () => {
  const list = (path: string, cursor: string, extra = '') =>
    call(h.api, { method: 'GET', path, query: `cursor=${encodeURIComponent(cursor)}${extra}` });
  const payoutKey = {
    pk: 'PAYOUT#01JD5ZQ8W3K7M9N2P4R6S8T0VX',
    sk: 'PAYOUT',
    gsi2pk: 'PAYOUT#MONTH#2026-01',
    gsi2sk: '2026-01-05T10:00:00.000Z#01JD5ZQ8W3K7M9N2P4R6S8T0VX',
  };
  const tampered: Record<string, string> = {
    'not base64url': '%%%',
    'not JSON': Buffer.from('not json').toString('base64url'),
    'an empty object': encodeCursor({}),
    'a key with a foreign attribute': encodeCursor({ month: '2026-01', key: { a: 'b' } }),
    'a key with an extra attribute': encodeCursor({ month: '2026-01', key: { ...payoutKey, x: '1' } }),
    'a key whose partition is not the cursor month': encodeCursor({ month: '2025-12', key: payoutKey }),
    'a month that does not exist': encodeCursor({ month: '2026-13' }),
    'a month in the year 9999': encodeCursor({ month: '9999-12' }),
    'a number for a key': encodeCursor({ month: '2026-01', key: { ...payoutKey, gsi2sk: 7 } }),
    'a JSON array': encodeCursor([1, 2]),
  };

  for (const [what, cursor] of Object.entries(tampered)) {
    it(`answers a GET /payouts cursor that is ${what} with 400 naming cursor`, async () => {
      expectRefusal(await list('/payouts', cursor), 'cursor');
    });
  }

  it('answers a cursor of another listing (another status, or a sort key outside from/to) with 400', async () => {
    const statusKey = {
      ...payoutKey,
      gsi1pk: 'PAYOUT#STATUS#succeeded',
      gsi1sk: payoutKey.gsi2sk,
    };
    const { gsi2pk: _p, gsi2sk: _s, ...withoutMonthIndex } = statusKey;
    const succeeded = encodeCursor({ key: withoutMonthIndex });
    expectRefusal(await list('/payouts', succeeded, '&status=failed'), 'cursor');
    expectRefusal(await list('/payouts', succeeded, '&status=succeeded&from=2026-02-01T00:00:00Z'), 'cursor');
  });

  it('answers a tampered GET /recurring-payouts cursor with 400 naming cursor', async () => {
    const key = {
      pk: 'RECURRENCE#01JD5ZQ8W3K7M9N2P4R6S8T0VX',
      sk: 'RECURRENCE',
      gsi2pk: 'RECURRENCE#ALL',
      gsi2sk: '2026-01-05T10:00:00.000Z#01JD5ZQ8W3K7M9N2P4R6S8T0VX',
    };
    for (const cursor of [
      encodeCursor({ a: 'b' }),
      encodeCursor({ ...key, gsi2pk: 'PAYOUT#MONTH#2026-01' }),
      encodeCursor(key),
    ]) {
      const reply = await list(
        '/recurring-payouts',
        cursor,
        cursor === encodeCursor(key) ? '&status=active' : '',
      );
      expectRefusal(reply, 'cursor');
    }
  });

  it('still pages with the cursors it issues', async () => {
    for (let i = 0; i < 3; i++) expect((await post('/payouts', bankTransfer())).status).toBe(201);
    const first = await call(h.api, { method: 'GET', path: '/payouts', query: 'limit=1' });
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await list('/payouts', first.body.nextCursor, '&limit=1');
    expect(second.status).toBe(200);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
  });
});
