import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../lib/shared/cursor.js';
import { type ApiHarness, call, type Reply, startApiHarness } from './support/harness.js';

/**
 * Property: whatever malformed body or header reaches POST /payouts or POST /recurring-payouts, and whatever
 * cursor reaches a list route, the answer is a 4xx problem (never a 5xx), nothing is written to the table and
 * the provider is never called. The router is invoked in-process to keep it fast.
 */

let h: ApiHarness;
beforeAll(async () => {
  // Instant settlement on, so its listing (GET /instant-settlements) answers rather than 503 not configured.
  h = await startApiHarness({
    env: {
      SETTLEMENT_DESTINATION_BANK_CODE: '058',
      SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0987654321',
      SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd',
      SETTLEMENT_SINCE: '2025-01-01T00:00:00Z',
    },
  });
});
afterAll(async () => h?.close());

const beneficiary = { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' };
const common = { amount: 500_000, currency: 'NGN', narration: 'property test' };
const validBodies: Record<string, unknown>[] = [
  { type: 'bank_transfer', ...common, beneficiary },
  { type: 'wallet_transfer', ...common, sourceWalletId: 'w-1', destinationWalletId: 'w-2' },
  { type: 'wallet_credit', ...common, walletId: 'w-1' },
  { type: 'wallet_debit', ...common, walletId: 'w-1' },
  { type: 'child_debit', ...common, childAccountId: 'c-1' },
  { type: 'child_bank_transfer', ...common, childAccountId: 'c-1', beneficiary },
];

/** Values that are wrong for the named field, whatever the payout type. */
const invalidValues: Record<string, unknown[]> = {
  type: ['cheque', '', 'BANK_TRANSFER', 1, null, ['bank_transfer']],
  amount: [-1, 0, -250_000, 1.5, 0.01, '500000', null, true, 1e300, 500_000_001, {}, []],
  currency: ['USD', 'ngn', '', 566, null],
  narration: [
    '',
    '   ',
    'x'.repeat(61),
    7,
    null,
    ['a'],
    'a\u0000b',
    'line\r\nbreak',
    'tab\there',
    'rlo \u202E txt',
    'zero\u200Bwidth',
    'bom\uFEFF',
    'nbsp\u00A0x',
    'line\u2028sep',
    'lone \uD800 surrogate',
    'po_01JD5ZQ8W3K7M9N2P4R6S8T0VX',
    'see PO_01jd5zq8w3k7m9n2p4r6s8t0vx',
  ],
  scheduleAt: ['2020-01-01T00:00:00Z', 'tomorrow', '2026-13-01T00:00:00Z', '2099-01-01', 1767225600000, ''],
  metadata: [
    'tags',
    [],
    { '': 'x' },
    { k: { nested: true } },
    Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i])),
    ...Object.getOwnPropertyNames(Object.prototype).map((name) => ({ [name]: 'x' })),
    { '9lives': 1 },
    { 'has space': 1 },
    { 'k\u0000': 1 },
    { payoutId: 'x' },
    { k: 'a\u202Eb' },
    Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'x'.repeat(200)])),
    // Numbers the payout's item cannot hold: beyond ±(2^53 - 1), or closer to 0 than DynamoDB stores.
    { bankRef: JSON.parse('12345678901234567890') },
    { k: -(2 ** 53) },
    { k: 1e-200 },
  ],
};
const invalidBeneficiaries: unknown[] = [
  { ...beneficiary, accountNumber: '012345678' },
  { ...beneficiary, accountNumber: '01234567890' },
  { ...beneficiary, accountNumber: '01234567ab' },
  { ...beneficiary, accountNumber: 123456789 },
  { ...beneficiary, bankCode: '58' },
  { ...beneficiary, bankCode: '0580000' },
  { ...beneficiary, accountName: '' },
  { ...beneficiary, accountName: 'x'.repeat(101) },
  { ...beneficiary, accountName: 'Ada\u0000Obi' },
  { ...beneficiary, accountName: 'Ada\nObi' },
  { ...beneficiary, accountName: 'Ada \u202EibO' },
  { ...beneficiary, accountName: 'A\u200Cda' },
  { ...beneficiary, accountName: 'Ada po_01JD5ZQ8W3K7M9N2P4R6S8T0VX' },
  { ...beneficiary, iban: 'GB00' },
  { bankCode: '058', accountNumber: '0123456789' },
  'Ada Obi',
  null,
];
const invalidIds: unknown[] = ['', 'has space', 'x'.repeat(65), 'semi;colon', 42, null];

/** A valid body with one field made wrong, removed, or an unknown field added. */
const mutatedBody = fc
  .tuple(fc.constantFrom(...validBodies), fc.nat(), fc.nat(), fc.string({ minLength: 1, maxLength: 12 }))
  .map(([body, pick, valuePick, extraName]) => {
    const copy: Record<string, unknown> = { ...body };
    const fields = Object.keys(copy);
    const choice = pick % (fields.length + Object.keys(invalidValues).length + 2);
    if (choice < fields.length) {
      const field = fields[choice] as string;
      if (field === 'beneficiary')
        copy[field] = invalidBeneficiaries[valuePick % invalidBeneficiaries.length];
      else if (field in invalidValues) {
        const values = invalidValues[field] as unknown[];
        copy[field] = values[valuePick % values.length];
      } else copy[field] = invalidIds[valuePick % invalidIds.length];
      return copy;
    }
    const extra = choice - fields.length;
    const invalidFields = Object.keys(invalidValues);
    if (extra < invalidFields.length) {
      const field = invalidFields[extra] as string;
      const values = invalidValues[field] as unknown[];
      copy[field] = values[valuePick % values.length];
      return copy;
    }
    if (extra === invalidFields.length) {
      // Remove a required field.
      const required = fields.filter((name) => name !== 'metadata');
      delete copy[required[valuePick % required.length] as string];
      return copy;
    }
    copy[`x_${extraName}`] = 'unexpected';
    return copy;
  });

/** A valid body of another type's fields (e.g. a wallet credit with a beneficiary). */
const crossedBody = fc
  .tuple(fc.constantFrom(...validBodies), fc.constantFrom(...validBodies))
  .filter(([a, b]) => a.type !== b.type)
  .map(([a, b]) => ({ ...b, ...a, type: b.type }))
  .filter(
    (body) =>
      Object.keys(body).length !== Object.keys(validBodies.find((v) => v.type === body.type) ?? {}).length,
  );

/** A valid body whose metadata has one key that is not a plain name, drawn at random. */
const hostileMetadataKey = fc
  .tuple(
    fc.constantFrom(...validBodies),
    fc.oneof(
      fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype)),
      fc.string({ minLength: 1, maxLength: 50 }).filter((key) => !/^[A-Za-z][A-Za-z0-9_.-]{0,39}$/.test(key)),
    ),
  )
  .filter(([, key]) => key !== '__proto__')
  .map(([body, key]) => ({ ...body, metadata: { [key]: 'x' } }));

/** A valid body whose narration holds one unprintable character or a marker at a random place. */
const hostileNarration = fc
  .tuple(
    fc.constantFrom(...validBodies),
    fc.string({ maxLength: 15, unit: 'grapheme-ascii' }),
    fc.oneof(
      fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
      fc.constantFrom(
        '\u007f',
        '\u0085',
        '\u200B',
        '\u200D',
        '\u202A',
        '\u202E',
        '\u2066',
        '\u2069',
        '\uFEFF',
      ),
      fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/).map((id) => `po_${id}`),
    ),
    fc.string({ maxLength: 10, unit: 'grapheme-ascii' }),
  )
  // At most 1 + 15 + 29 + 10 + 1 = 56 characters: the hostile part is always inside the 60 allowed.
  .map(([body, before, bad, after]) => ({ ...body, narration: `x${before}${bad}${after}x` }));

type Case = { body: string | undefined; key: string | undefined };

const validKey = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
const invalidKey = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc.string({ minLength: 256, maxLength: 300, unit: fc.constantFrom('a', 'b', '-', '7') }),
  fc
    .tuple(validKey, fc.constantFrom(' ', '\t', 'é', '€', '\u0000', '\u007f'), validKey)
    .map(([a, bad, b]) => `${a}${bad}${b}`),
);

const cases: fc.Arbitrary<Case> = fc.oneof(
  // Anything JSON at all: never a valid payout by chance.
  { arbitrary: fc.record({ body: fc.jsonValue().map((v) => JSON.stringify(v)), key: validKey }), weight: 3 },
  // Not JSON, truncated JSON, or empty.
  {
    arbitrary: fc.record({
      body: fc.oneof(
        fc.string(),
        fc.constant(undefined),
        fc.constantFrom(...validBodies).map((b) => JSON.stringify(b).slice(0, -1)),
        fc.constantFrom('{', '[', 'null', '"x"', '{"type":}', '\u0000'),
      ),
      key: validKey,
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ body: mutatedBody.map((b) => JSON.stringify(b)), key: validKey }), weight: 5 },
  { arbitrary: fc.record({ body: crossedBody.map((b) => JSON.stringify(b)), key: validKey }), weight: 1 },
  {
    arbitrary: fc.record({ body: hostileMetadataKey.map((b) => JSON.stringify(b)), key: validKey }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ body: hostileNarration.map((b) => JSON.stringify(b)), key: validKey }),
    weight: 2,
  },
  // A perfectly valid body with a missing, empty, too long or non-printable key.
  {
    arbitrary: fc.record({
      body: fc.constantFrom(...validBodies).map((b) => JSON.stringify(b)),
      key: invalidKey,
    }),
    weight: 2,
  },
);

function expectClientProblem(reply: Reply): void {
  expect(reply.status).toBeGreaterThanOrEqual(400);
  expect(reply.status).toBeLessThan(500);
  expect(reply.headers['content-type']).toBe('application/problem+json');
  expect(reply.body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status: reply.status,
    detail: expect.any(String),
  });
  if (reply.status === 400) expect(reply.body.errors.length).toBeGreaterThan(0);
}

describe('POST /payouts under malformed input', () => {
  it('answers only 4xx problems, writes nothing and calls no provider, for thousands of malformed requests', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(cases, async ({ body, key }) => {
        runs++;
        const reply = await call(h.api, {
          method: 'POST',
          path: '/payouts',
          ...(key !== undefined && { headers: { 'Idempotency-Key': key } }),
          ...(body !== undefined && { body }),
        });
        expectClientProblem(reply);
      }),
      { numRuns: 3000 },
    );
    expect(runs).toBeGreaterThanOrEqual(3000);
    expect(await h.items()).toEqual([]);
    expect(h.sandbox.stats().requests).toEqual({});
  }, 120_000);
});

const rule = { interval: 'weekly', startDate: '2099-01-05', timeOfDay: '09:00' };

describe('POST /recurring-payouts under malformed input', () => {
  it('answers only 4xx problems, writes nothing and calls no provider, for malformed payouts in a rule', async () => {
    const bodies = fc.oneof(
      // The per-payout maximum of a rule is the control gate's, proved with the recurrence
      // tests; here only malformed input.
      mutatedBody.filter((body) => !('scheduleAt' in body) && body.amount !== 500_000_001),
      hostileMetadataKey,
      hostileNarration,
    );
    await fc.assert(
      fc.asyncProperty(bodies, validKey, async (body, key) => {
        const reply = await call(h.api, {
          method: 'POST',
          path: '/recurring-payouts',
          headers: { 'Idempotency-Key': key },
          body: JSON.stringify({ ...body, ...rule }),
        });
        expectClientProblem(reply);
      }),
      { numRuns: 600 },
    );
    expect(await h.items()).toEqual([]);
    expect(h.sandbox.stats().requests).toEqual({});
  }, 120_000);
});

/** Mostly the value a real cursor holds, sometimes an empty or arbitrary one: real-looking positions one field off. */
const mostly = <T>(real: fc.Arbitrary<T>) =>
  fc.oneof(
    { arbitrary: real, weight: 6 },
    { arbitrary: fc.constant(''), weight: 1 },
    { arbitrary: fc.string({ maxLength: 30 }), weight: 1 },
    { arbitrary: fc.jsonValue(), weight: 1 },
  );

/** Cursors a client could send: anything, base64url of anything, and real-looking positions one field off. */
const month = fc
  .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }))
  .map(([y, m]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`);
const payoutKeyLike = fc.record({
  pk: mostly(fc.constant('PAYOUT#01JD5ZQ8W3K7M9N2P4R6S8T0VX')),
  sk: mostly(fc.constant('PAYOUT')),
  gsi1pk: mostly(fc.constantFrom('PAYOUT#STATUS#succeeded', 'PAYOUT#STATUS#failed')),
  gsi1sk: mostly(fc.constant('2026-01-05T10:00:00.000Z#01JD5ZQ8W3K7M9N2P4R6S8T0VX')),
  gsi2pk: mostly(month.map((m) => `PAYOUT#MONTH#${m}`)),
  gsi2sk: mostly(fc.constant('2026-01-05T10:00:00.000Z#01JD5ZQ8W3K7M9N2P4R6S8T0VX')),
});
const recurrenceKeyLike = fc.record({
  pk: mostly(fc.constant('RECURRENCE#01JD5ZQ8W3K7M9N2P4R6S8T0VX')),
  sk: mostly(fc.constant('RECURRENCE')),
  gsi1pk: mostly(fc.constantFrom('RECURRENCE#STATUS#active', 'RECURRENCE#STATUS#paused', 'RECURRENCE#ALL')),
  gsi1sk: mostly(fc.constant('2026-01-05T10:00:00.000Z#01JD5ZQ8W3K7M9N2P4R6S8T0VX')),
  gsi2pk: mostly(fc.constantFrom('RECURRENCE#ALL', 'RECURRENCE#STATUS#active')),
  gsi2sk: mostly(fc.constant('2026-01-05T10:00:00.000Z#01JD5ZQ8W3K7M9N2P4R6S8T0VX')),
});
const anyCursor = fc.oneof(fc.string({ minLength: 1, maxLength: 64 }), fc.jsonValue().map(encodeCursor));
const settlementKeyLike = (index: string, partition: string) =>
  fc.record({
    pk: mostly(fc.constant('SETTLEMENT#6c1f0e1a')),
    sk: mostly(fc.constantFrom('DECISION', 'DEFERRAL')),
    index: mostly(fc.constant(index)),
    ipk: mostly(fc.constant(partition)),
    isk: mostly(fc.constant('2026-01-05T10:00:00.000Z#6c1f0e1a')),
  });

/** Dead letters and corrected bulk items: the shared listing position `{ pk, sk, index, ipk, isk }`. */
const deadLetterKeyLike = (index: string, partition: string) =>
  fc.record({
    pk: mostly(fc.constantFrom('DEAD_LETTER#01JD5ZQ8W3K7M9N2P4R6S8T0VX', 'BULK_ITEM#item-1')),
    sk: mostly(fc.constantFrom('LETTER', 'LATEST')),
    index: mostly(fc.constant(index)),
    ipk: mostly(fc.constant(partition)),
    isk: mostly(fc.constant('2026-01-05T10:00:00.000Z#01JD5ZQ8W3K7M9N2P4R6S8T0VX')),
  });

/** Every list route, each filter with the cursors that come closest to one its listing issues. */
const listRequests: fc.Arbitrary<{ path: string; filter: string; cursor: string }>[] = [
  ...['', '&status=succeeded', '&status=failed', '&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z'].map(
    (filter) =>
      fc.record({
        path: fc.constant('/payouts'),
        filter: fc.constant(filter),
        cursor: fc.oneof(
          anyCursor,
          fc.record({ month, key: payoutKeyLike }, { requiredKeys: ['month'] }).map(encodeCursor),
          payoutKeyLike.map((key) => encodeCursor({ key })),
        ),
      }),
  ),
  ...['', '&status=active', '&status=paused'].map((filter) =>
    fc.record({
      path: fc.constant('/recurring-payouts'),
      filter: fc.constant(filter),
      cursor: fc.oneof(anyCursor, recurrenceKeyLike.map(encodeCursor)),
    }),
  ),
  ...[
    ['', 'gsi2', 'SETTLEMENT#ALL'],
    ['&state=paid', 'gsi1', 'SETTLEMENT#STATE#paid'],
    ['&state=deferred', 'gsi1', 'SETTLEMENT#STATE#deferred'],
  ].map(([filter = '', index = '', partition = '']) =>
    fc.record({
      path: fc.constant('/instant-settlements'),
      filter: fc.constant(filter),
      cursor: fc.oneof(anyCursor, settlementKeyLike(index, partition).map(encodeCursor)),
    }),
  ),
  ...[
    ['', 'gsi2', 'BULK_ITEM#ALL'],
    ['&isValid=true', 'gsi1', 'BULK_ITEM#VALID#true'],
  ].map(([filter = '', index = '', partition = '']) =>
    fc.record({
      path: fc.constant('/bulk-payout-items'),
      filter: fc.constant(filter),
      cursor: fc.oneof(anyCursor, deadLetterKeyLike(index, partition).map(encodeCursor)),
    }),
  ),
  ...[
    ['', 'gsi2', 'DEAD_LETTER#ALL'],
    ['&status=open', 'gsi1', 'DEAD_LETTER#STATUS#open'],
  ].map(([filter = '', index = '', partition = '']) =>
    fc.record({
      path: fc.constant('/dead-letters'),
      filter: fc.constant(filter),
      cursor: fc.oneof(anyCursor, deadLetterKeyLike(index, partition).map(encodeCursor)),
    }),
  ),
];

describe('list routes under tampered cursors', () => {
  it('answer 400 naming cursor (or 200 for a position that happens to fit), never a 5xx, on every list route', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(...listRequests), async ({ path, filter, cursor: value }) => {
        const reply = await call(h.api, {
          method: 'GET',
          path,
          query: `cursor=${encodeURIComponent(value)}${filter}`,
        });
        expect(reply.status, `${path}?${filter} ${value}`).toBeLessThan(500);
        if (reply.status !== 200) {
          expectClientProblem(reply);
          expect(reply.body.errors.map((e: { path: string }) => e.path)).toContain(
            reply.body.errors[0].path.startsWith('query.') ? 'query.cursor' : 'cursor',
          );
        }
      }),
      { numRuns: 1500 },
    );
    expect(await h.items()).toEqual([]);
    expect(h.sandbox.stats().requests).toEqual({});
  }, 120_000);
});

/** An ISO-like date-time with any year (0000-9999), sometimes out of range, with `Z` or any `±HH:MM` offset. */
const dateTimeLike = fc
  .tuple(
    fc.oneof(
      { arbitrary: fc.integer({ min: 1995, max: 3005 }), weight: 4 },
      { arbitrary: fc.integer({ min: 0, max: 9999 }), weight: 1 },
    ),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 24 }),
    fc.integer({ min: 0, max: 59 }),
    fc.oneof(
      fc.constant('Z'),
      fc
        .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 24 }), fc.constantFrom(0, 30, 45))
        .map(([sign, h, m]) => `${sign}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
    ),
    fc.constantFrom('', '.5', '.123', '.123456789'),
  )
  .map(([y, mo, d, h, mi, zone, fraction]) => {
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    return `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:00${fraction}${zone}`;
  });
/** What a client could put in a date parameter: a date-time, a bare date, a number, text, nothing. */
const dateValue = fc.oneof(
  { arbitrary: dateTimeLike, weight: 6 },
  {
    arbitrary: fc.constantFrom('', 'yesterday', '2026-01-01', '1767225600000', 'null', '2026-01-01T00:00Z'),
    weight: 1,
  },
  { arbitrary: fc.string({ maxLength: 30 }), weight: 1 },
);

/** Every list route, with the date and range parameters it takes (none: a date parameter is an unknown field). */
const LIST_ROUTES: readonly { path: string; filters: readonly string[]; range: readonly string[] }[] = [
  { path: '/payouts', filters: ['', 'status=succeeded&', 'type=bank_transfer&'], range: ['from', 'to'] },
  { path: '/future-payouts', filters: [''], range: ['days'] },
  { path: '/refunds', filters: [''], range: [] },
  { path: '/recurring-payouts', filters: [''], range: [] },
  { path: '/instant-settlements', filters: ['', 'state=paid&'], range: [] },
  { path: '/bulk-payout-items', filters: [''], range: [] },
  { path: '/bulk-correction-jobs', filters: [''], range: [] },
  { path: '/dead-letters', filters: [''], range: [] },
  { path: '/approvals', filters: [''], range: [] },
];
const DATE_NAMES = ['from', 'to', 'since', 'until', 'date', 'days'];

describe('list routes under malformed date and range parameters', () => {
  it('answer 200 only for a range within the rules, otherwise a 400 naming a query field, never a 5xx', async () => {
    const requests = fc.record({
      route: fc.constantFrom(...LIST_ROUTES),
      filter: fc.nat(),
      params: fc.uniqueArray(
        fc.tuple(
          fc.constantFrom(...DATE_NAMES),
          fc.oneof(dateValue, fc.integer({ min: -5, max: 400 }).map(String)),
        ),
        { minLength: 1, maxLength: 3, selector: ([name]) => name },
      ),
    });
    await fc.assert(
      fc.asyncProperty(requests, async ({ route, filter, params }) => {
        const query = `${route.filters[filter % route.filters.length]}${params
          .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
          .join('&')}`;
        const reply = await call(h.api, { method: 'GET', path: route.path, query });
        const where = `${route.path}?${query}`;
        expect(reply.status, where).toBeLessThan(500);
        if (reply.status !== 200) {
          expect(reply.status, where).toBe(400);
          expectClientProblem(reply);
          for (const issue of reply.body.errors as { path: string }[]) {
            expect(issue.path, where).toMatch(/^query\.[a-z]+$/);
          }
          return;
        }
        // A 200 only for parameters the route takes, and for the payouts' range only within its rules.
        for (const [name] of params) expect(route.range, where).toContain(name);
        const given = Object.fromEntries(params);
        const from = given.from === undefined ? undefined : Date.parse(given.from);
        const to = given.to === undefined ? undefined : Date.parse(given.to);
        for (const instant of [from, to]) {
          if (instant === undefined) continue;
          expect(instant, where).toBeGreaterThanOrEqual(Date.UTC(2000, 0, 1));
          expect(instant, where).toBeLessThan(Date.UTC(3000, 0, 1));
        }
        if (from !== undefined) {
          expect((to ?? Date.now()) - from, where).toBeLessThanOrEqual(400 * 86_400_000);
          if (to !== undefined) expect(from, where).toBeLessThanOrEqual(to);
        }
      }),
      { numRuns: 1500 },
    );
    expect(await h.items()).toEqual([]);
    expect(h.sandbox.stats().requests).toEqual({});
  }, 180_000);
});

const CSV_COLUMNS = ['bulkPayoutItemId', 'accountNumber', 'bankCode', 'amount', 'phoneNumber', 'narration'];

/** A header cell: a known name as a spreadsheet might write it (case, blanks, quotes), an unknown one, or none. */
const headerCell = fc.oneof(
  { arbitrary: fc.constantFrom(...CSV_COLUMNS), weight: 6 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom(...CSV_COLUMNS), fc.constantFrom('upper', 'lower', 'first'))
      .map(([name, kind]) =>
        kind === 'upper'
          ? name.toUpperCase()
          : kind === 'lower'
            ? name.toLowerCase()
            : `${name[0]?.toUpperCase()}${name.slice(1)}`,
      ),
    weight: 1,
  },
  { arbitrary: fc.constantFrom('', ' ', 'iban', 'amount2', 'bulk payout item id', '"'), weight: 1 },
  { arbitrary: fc.string({ maxLength: 12 }).filter((text) => !/[,"\r\n]/.test(text)), weight: 1 },
);
const csvHeader = fc
  .tuple(
    fc.array(
      fc.tuple(headerCell, fc.constantFrom('', ' ', '\t'), fc.boolean()).map(([name, pad, quote]) => {
        const padded = `${pad}${name}${pad}`;
        // A bare quote would make the text unreadable as CSV (a 400 naming the body): quoted, it is a name.
        return quote || name.includes('"') ? `"${padded.replaceAll('"', '""')}"` : padded;
      }),
      { minLength: 1, maxLength: 8 },
    ),
    fc.boolean(),
  )
  .map(([cells, bom]) => `${bom ? '\uFEFF' : ''}${cells.join(',')}`);

describe('POST /bulk-payout-items/corrections under malformed CSV headers', () => {
  it('answers a header with a repeated, unknown or unnamed column a 400 naming header, never a 5xx, storing and sending nothing', async () => {
    await fc.assert(
      fc.asyncProperty(csvHeader, async (header) => {
        // Every cell of the data row is one no column accepts (an id included, whichever column it falls in), so a
        // well-formed header is a 400 for the row.
        const reply = await call(h.api, {
          method: 'POST',
          path: '/bulk-payout-items/corrections',
          headers: { 'content-type': 'text/csv' },
          body: `${header}\n${Array.from({ length: 8 }, () => 'not an id!').join(',')}\n`,
        });
        expect(reply.status, header).toBe(400);
        expectClientProblem(reply);
        const names = header
          .replace(/^\uFEFF/, '')
          .split(',')
          .map((cell) =>
            cell
              .replace(/^\s*"?|"?\s*$/g, '')
              .replaceAll('""', '"')
              .trim(),
          );
        const wellFormed =
          names.every((name) => CSV_COLUMNS.includes(name)) &&
          new Set(names).size === names.length &&
          names.includes('bulkPayoutItemId');
        const paths = (reply.body.errors as { path: string }[]).map((issue) => issue.path);
        if (wellFormed) expect(paths, header).not.toContain('header');
        else expect(paths, header).toEqual(paths.map(() => 'header'));
        for (const path of paths) expect(path, header).not.toBe('');
      }),
      { numRuns: 800 },
    );
    expect(await h.items()).toEqual([]);
    expect(h.sandbox.stats().requests).toEqual({});
  }, 120_000);
});
