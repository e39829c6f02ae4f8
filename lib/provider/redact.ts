import type { Credentials } from './credentials.js';

const REDACTED = '[REDACTED]';

/**
 * Removes every occurrence of the token and the PIN from a text that will end up in an error or a log line
 * (e.g. a provider error message that echoes the request). Very short PINs are scrubbed too: a mangled
 * amount in a message is better than a leaked PIN.
 */
export function scrubSecrets(text: string, credentials: readonly (Credentials | undefined)[]): string {
  let result = text;
  for (const credential of credentials) {
    if (!credential) continue;
    for (const secret of [credential.token, credential.pin]) {
      if (secret.length > 0) result = result.split(secret).join(REDACTED);
    }
  }
  return result;
}
