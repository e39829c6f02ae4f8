import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The fields every log line of one invocation (or one payout within it) carries: the Lambda request id, the cold
 * start, the function's name, and where there is one the payout id and the correlation id. Held in
 * AsyncLocalStorage so lib/ logs them without passing them down; the handler wrapper (lib/runtime/lambda-handler.ts),
 * the API router and the submission worker set them.
 */
const storage = new AsyncLocalStorage<Readonly<Record<string, unknown>>>();

/** The fields of the context the caller runs in; undefined outside any. */
export const logContext = () => storage.getStore();

/**
 * Runs `body` with `fields` added to the current context (the outer fields stay, the inner win).
 *
 * @example await withLogContext({ payoutId, correlationId }, () => submit(payoutId));
 */
export const withLogContext = <T>(fields: Readonly<Record<string, unknown>>, body: () => T): T =>
  storage.run({ ...storage.getStore(), ...fields }, body);
