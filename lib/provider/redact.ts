/** What replaces a removed credential. */
export const REDACTED = '[REDACTED]';

/**
 * A value written next to a credential's name: `"pin":"4821"`, `pin=4821`, `token: abc`, `PIN 4821`,
 * `Bearer abc`. Which text is removed depends only on the shape of the message, never on what the secret is,
 * so the answer cannot tell a caller anything about the PIN (issue 13, finding 8).
 */
const LABELLED_VALUE =
  /((?:\b(?:pin|password|passcode|secret|token|api[_-]?key|authorization)\b["']?\s*[:=]\s*["']?(?:bearer\s+)?)|(?:\bbearer\s+)|(?:\bpin\s+(?=\d)))([^\s"',;&}\])]+)/gi;

/** Characters that make up one token of text; anything else (space, quote, comma, dot, colon...) ends it. */
const TOKEN_CHARACTER = /[\p{L}\p{N}_-]/u;

/**
 * Removes credentials from a text that will be stored, returned or logged (a provider error message that
 * echoes the request, a transport error). Never alters the rest of the text:
 *
 * - a value labelled as a credential (`"pin":"..."`, `Bearer ...`) is removed whatever it is;
 * - the bearer token is removed where a WHOLE token of the text equals it (a long random string: matching it
 *   whole tells nobody anything they did not already hold).
 *
 * The PIN is deliberately never searched for by value. It is short: removing it wherever it appears, even as
 * a whole token, turns "amount 4821 is above the amount paid" into an oracle that says whether the PIN is
 * 4821, and substring removal corrupted wallet ids besides. The PIN travels only as the body's `pin` field,
 * so an echo of it is labelled and removed by the first rule.
 *
 * @example withoutSecrets('bad "pin":"0000" for wallet 5a4db0c0-0000-4000', [token])
 * // 'bad "pin":"[REDACTED]" for wallet 5a4db0c0-0000-4000'
 */
export function withoutSecrets(text: string, tokens: readonly string[]): string {
  let result = text.replace(LABELLED_VALUE, (_match, label: string) => `${label}${REDACTED}`);
  for (const token of tokens) result = withoutWholeToken(result, token);
  return result;
}

/** Replaces each occurrence of `secret` that is a whole token: no token character right before or after it. */
function withoutWholeToken(text: string, secret: string): string {
  if (secret === '') return text;
  let result = '';
  let from = 0;
  for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
    if (at < from) continue;
    const end = at + secret.length;
    if (isTokenCharacter(text[at - 1]) || isTokenCharacter(text[end])) continue;
    result += `${text.slice(from, at)}${REDACTED}`;
    from = end;
  }
  return result + text.slice(from);
}

function isTokenCharacter(character: string | undefined): boolean {
  return character !== undefined && TOKEN_CHARACTER.test(character);
}
