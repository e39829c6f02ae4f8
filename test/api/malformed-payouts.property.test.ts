import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, call, type Reply, startApiHarness } from './support/harness.js';

/**
 * Property: whatever malformed body or header reaches POST /payouts, the answer is a 4xx problem, nothing is
 * written to the table and the provider is never called. The router is invoked in-process to keep it fast.
 */

let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
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
  narration: ['', '   ', 'x'.repeat(61), 7, null, ['a']],
  scheduleAt: ['2020-01-01T00:00:00Z', 'tomorrow', '2026-13-01T00:00:00Z', '2099-01-01', 1767225600000, ''],
  metadata: [
    'tags',
    [],
    { '': 'x' },
    { k: { nested: true } },
    Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i])),
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
