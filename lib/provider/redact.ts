import type { Credentials } from './credentials.js';

const REDACTED = '[REDACTED]';
const MIN_SECRET_LENGTH = 3;

/**
 * Removes every occurrence of the token and the PIN from a text that will end up in an error or a log line
 * (e.g. a provider error message that echoes the request). PINs are scrubbed even when short: a mangled
 * amount in a message is better than a leaked PIN. Secrets under 3 characters are not real secrets and would
 * shred every text, so they are left alone.
 */
export function scrubSecrets(text: string, credentials: readonly (Credentials | undefined)[]): string {
  let result = text;
  for (const credential of credentials) {
    if (!credential) continue;
    for (const secret of [credential.token, credential.pin]) {
      if (secret.length >= MIN_SECRET_LENGTH) result = result.split(secret).join(REDACTED);
    }
  }
  return result;
}
