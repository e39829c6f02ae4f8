import { describe, expect, it } from 'vitest';
import { carriesPayoutMarker, firstUnprintable } from '../../lib/shared/text.js';

/** The rule as lib/shared/text.ts states it, written out here as the oracle: the categories a person cannot read. */
const RULE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}]|[^\P{Zs} ]/u;
const expected = (text: string): string | undefined => {
  const match = RULE.exec(text);
  return match
    ? `U+${(match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
    : undefined;
};

describe('firstUnprintable', () => {
  it('answers as the rule does for every code unit of the Basic Multilingual Plane, alone and inside ASCII text', () => {
    const disagreements: string[] = [];
    for (let unit = 0; unit <= 0xffff; unit++) {
      const character = String.fromCharCode(unit);
      for (const text of [character, `invoice ${character} 2041`]) {
        if (firstUnprintable(text) !== expected(text))
          disagreements.push(`U+${unit.toString(16)} in ${JSON.stringify(text)}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('passes printable ASCII and names the first hidden character elsewhere', () => {
    expect(firstUnprintable('March invoice #2041 (Ada Supplies) ~ 100%')).toBeUndefined();
    expect(firstUnprintable('invoice \u202E1402')).toBe('U+202E');
    expect(firstUnprintable('tab\there')).toBe('U+0009');
    expect(firstUnprintable('no\u00A0break')).toBe('U+00A0');
    expect(firstUnprintable('caf\u00E9 \u{1F600}')).toBeUndefined();
    expect(firstUnprintable('private \u{F0000}')).toBe('U+F0000');
    expect(firstUnprintable('lone \uD800 surrogate')).toBe('U+D800');
  });
});

describe('carriesPayoutMarker', () => {
  const MARKER = /po_[0-9a-hjkmnp-tv-z]{26}/i;
  const oracle = (text: string) => MARKER.test(text) || MARKER.test(text.normalize('NFKC'));

  it('answers as the marker folded by NFKC does, whatever code unit stands in for its first letter', () => {
    const disagreements: string[] = [];
    for (let unit = 0; unit <= 0xffff; unit++) {
      const text = `paid by ${String.fromCharCode(unit)}o_01m8a03rxyn3fdhqdyrn65gnwd`;
      if (carriesPayoutMarker(text) !== oracle(text)) disagreements.push(`U+${unit.toString(16)}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('finds the marker in any case and in full-width letters, and nothing in plain text', () => {
    expect(carriesPayoutMarker('refund of PO_01M8A03RXYN3FDHQDYRN65GNWD')).toBe(true);
    expect(carriesPayoutMarker('\uFF50\uFF4F\uFF3F01M8A03RXYN3FDHQDYRN65GNWD')).toBe(true);
    expect(carriesPayoutMarker('March invoice, PO 2041')).toBe(false);
  });
});
