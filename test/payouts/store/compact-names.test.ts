import { describe, expect, it } from 'vitest';
import { fromStoredNames, storedNameOf, toStoredNames } from '../../../lib/payouts/store/compact-names.js';

describe('stored names', () => {
  it('map back to exactly the names they came from, and never to a name kept as it is', () => {
    const long = [
      'amountKobo',
      'instruction',
      'type',
      'receipt',
      'status',
      'sequence',
      'at',
      'attempt',
      'walletId',
    ];
    const shortNames = long.map(storedNameOf);

    expect(new Set(shortNames).size).toBe(long.length);
    expect(fromStoredNames(toStoredNames(Object.fromEntries(long.map((name) => [name, 1]))))).toEqual(
      Object.fromEntries(long.map((name) => [name, 1])),
    );
    for (const kept of [
      'pk',
      'sk',
      'entity',
      'version',
      'ev',
      'ke',
      'gsi1pk',
      'gsi2sk',
      'constructor',
      'toString',
    ]) {
      expect(fromStoredNames({ [kept]: 1 })).toEqual({ [kept]: 1 });
    }
  });

  it("leave the client's own maps as they are, at any depth", () => {
    const value = {
      metadata: { type: 'x', amountKobo: 2 },
      details: { status: 'y' },
      attempt: { number: 1 },
    };

    expect(toStoredNames(value)).toEqual({
      md: { type: 'x', amountKobo: 2 },
      d: { status: 'y' },
      at: { n: 1 },
    });
    expect(fromStoredNames(toStoredNames(value))).toEqual(value);
  });
});
