/**
 * The longest each kind of field may be wherever it is answered (the ops API's response schemas) or published
 * (domain events), declared once. Inputs are refused above their own, smaller maxima (lib/payouts/schemas.ts,
 * lib/shared/text.ts); what the provider sends is a fact we record, so it is clipped to these instead of refused
 * (`clipText`). From these the largest API answer and the largest event are proven
 * (test/infra/api-answer-sizes.test.ts, test/infra/message-sizes.test.ts).
 */
export const FIELD_MAXIMA = {
  /** Ids: ours (ULIDs), the caller's idempotency key (255), a principal's (an IAM ARN). */
  id: 255,
  /** The provider's references: transaction ids, session ids, refund ids (a client's transaction id is at most 100). */
  reference: 100,
  /** Kinds, statuses, codes, bank codes, account numbers. */
  word: 64,
  /** An instant as written (`2026-11-23T20:35:00.123456789+01:00` is 35; `toISOString` gives 24 to 27). */
  instant: 35,
  /** A person's or an account's name, a narration, a field's path (clients' are at most 60 or 100). */
  name: 100,
  /** A reason, a note, a summary: a sentence or two (clients' are at most 200 or 500). */
  text: 500,
  /** A failure's message, as the provider or the engine wrote it. */
  message: 1_000,
  /** Attempts and transaction ids named by a double payment, watched attempts. */
  items: 20,
  /** Field issues of one validation problem (the first ones; its `detail` names them all, clipped). */
  issues: 50,
  /** Field issues of one row of a correction job (a row has six fields). */
  rowIssues: 10,
  /** Entries of a record's audit trail answered at once (the newest). */
  audit: 100,
  /** Items of one page of any listing (`limit` is 1 to 100). */
  page: 100,
  /** A cursor (`cursor` is refused above 2048). */
  cursor: 2_048,
  /** Keys of a metadata record, and the longest key (lib/payouts/schemas.ts). */
  metadataKeys: 10,
  metadataKey: 40,
  /** The longest metadata value string. */
  metadataValue: 200,
  /** A metadata record as JSON, in bytes (lib/payouts/schemas.ts refuses a larger one). */
  metadataBytes: 2_048,
} as const;

/**
 * Control characters and lone surrogates (also what clipping a surrogate pair leaves): JSON would carry each as a
 * six-byte `\u` escape, and none has a meaning in a name, a message or an id.
 */
const UNPRINTABLE = /\p{Cc}|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

/**
 * `value` cut to `max` characters, its end marked (`…`), so an over-long text is still read as cut; control
 * characters and lone surrogates replaced by U+FFFD, so each character is at most three bytes as JSON (a response
 * string marked `x-printable`, which the size proofs count so).
 *
 * @example clipText('x'.repeat(300), FIELD_MAXIMA.name).length; // 100
 */
export function clipText(value: string, max: number): string {
  const clipped = value.length <= max ? value : `${value.slice(0, max - 1)}…`;
  return clipped.replace(UNPRINTABLE, '\ufffd');
}
