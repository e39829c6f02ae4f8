import * as z from './zod.js';

/**
 * Characters no client text may hold: controls (NUL, CR, LF, TAB, DEL, C1), format characters (bidirectional
 * controls such as RIGHT-TO-LEFT OVERRIDE, zero-width space and joiners, the BOM, soft hyphen), line and
 * paragraph separators, private-use code points and lone surrogates, and every space but U+0020. They hide or
 * reorder what a person reads in a bank statement, a log line or the ops UI, or split a record in two.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}]|[^\P{Zs} ]/u;

/**
 * The reconciler's own marker, `po_` and a payout id (a ULID: 26 Crockford base32 characters), in any case:
 * the reconciler finds a payout on the provider's side by it, so a client narration carrying another payout's
 * marker could make that payout look paid.
 */
const PAYOUT_MARKER = /po_[0-9a-hjkmnp-tv-z]{26}/i;

/**
 * Printable ASCII, none of which UNPRINTABLE matches (its one space, U+0020, is allowed). Most texts are only
 * that, and this test answers at once, where UNPRINTABLE's Unicode classes cost a cold process about 0.15 ms a
 * call until V8 compiles the expression (test/shared/text.test.ts holds both to the same answers).
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The first character a person could not see or that would be misread (`U+202E`), or undefined. */
export function firstUnprintable(text: string): string | undefined {
  if (PRINTABLE_ASCII.test(text)) return undefined;
  const match = UNPRINTABLE.exec(text);
  if (!match) return undefined;
  const code = match[0].codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** True when the text, folded as a provider or a bank might fold it (NFKC, any case), carries a payout marker. */
export function carriesPayoutMarker(text: string): boolean {
  if (PAYOUT_MARKER.test(text)) return true;
  // Printable ASCII folds to itself.
  return !PRINTABLE_ASCII.test(text) && PAYOUT_MARKER.test(text.normalize('NFKC'));
}

export interface ClientTextOptions {
  /** The longest text accepted, in UTF-16 code units after trimming and NFC normalisation. */
  readonly max: number;
  /** Whether the reconciler's marker `po_<ULID>` is refused (default: yes). */
  readonly refuseMarker?: boolean;
}

/**
 * The one schema for text a client writes that people read later: narrations, account names, notes, reasons.
 * Trimmed and NFC-normalised (so `é` is one code point whichever way it was typed), 1 to `max` characters,
 * printable only (see `UNPRINTABLE`), and never the reconciler's marker `po_<payout id>`.
 *
 * @example
 * const NarrationSchema = clientText({ max: 60 });
 * NarrationSchema.parse('  invoice 2041 '); // 'invoice 2041'
 * NarrationSchema.safeParse('invoice\u202Egnp.exe').success; // false: right-to-left override
 */
export function clientText(options: ClientTextOptions) {
  const refuseMarker = options.refuseMarker ?? true;
  return z.string().check(
    z.describe(
      `printable text, 1 to ${options.max} characters after trimming and NFC normalisation: no control, ` +
        'bidirectional-control, zero-width or non-standard space characters' +
        (refuseMarker ? ', and no payout marker (po_ followed by a 26-character payout id, any case)' : ''),
    ),
    // Hidden characters are refused wherever they are, before trimming could quietly drop one at an end.
    z.superRefine((text, ctx) => {
      const bad = firstUnprintable(text);
      if (bad !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `must be printable text: ${bad} (a control, bidirectional, zero-width or non-standard space character) is not allowed`,
          input: text,
        });
      }
    }),
    z.trim(),
    z.normalize('NFC'),
    z.minLength(1, 'must not be empty'),
    z.maxLength(options.max, `must be at most ${options.max} characters`),
    z.refine(
      (text) => !refuseMarker || !carriesPayoutMarker(text),
      'must not contain a payout marker (po_ followed by a payout id): the reconciler reserves it',
    ),
  );
}

/**
 * An id another system issued and a client names (a wallet, a settlement, a bulk payout item): 1 to 64 letters,
 * digits, `-` or `_`, so it fits a key and a narration and carries nothing a person could misread.
 *
 * @example issuedId().safeParse('6c1f0e1a-93b4-4c59-8a55-0f7b0c3f6d11').success; // true
 */
export function issuedId() {
  return z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(64),
      z.regex(/^[A-Za-z0-9_-]+$/, 'must be an id of letters, digits, - or _'),
    );
}
