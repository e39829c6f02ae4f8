import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { HandlerExecutionContext } from '@smithy/types';
import { jitteredPause } from './jitter.js';
import { collectResponseBody } from './response-body.js';
import { SETTLED_SDK_CONFIG } from './sdk-settled-config.js';
import { CONFLICT_PAUSE_CAP_MS, MAX_CONFLICT_RETRIES } from './transaction-conflicts.js';

/**
 * Deadlines on each HTTP attempt; by default the SDK waits forever on a connection that went quiet. Both are
 * measured from the attempt's start (node-http-handler's `setConnectionTimeout` and `setRequestTimeout`), and a
 * timed-out attempt fails as `TimeoutError` (`ETIMEDOUT`), which the SDK's standard retry strategy counts as
 * transient and repeats (DynamoDB's default is 4 attempts, with backoff): one `send` is not bounded by these alone.
 */
export const REQUEST_HANDLER = {
  connectionTimeout: 3_000,
  requestTimeout: 10_000,
  throwOnRequestTimeout: true,
};

/**
 * The most one `send` takes, its retries and their backoff included: the bound every worst case in
 * test/infra/handler-limits.test.ts counts per DynamoDB call. Past it the call fails with
 * a `TimeoutError` and its signal is aborted, so the SDK makes no further attempt.
 */
export const DYNAMODB_CALL_DEADLINE_MS = 13_000;

/**
 * Where the SDK keeps a call's abort signal in its handler context: @smithy/types' `SMITHY_CONTEXT_KEY`, spelled
 * out so the bundles do not carry that package for one string (test/shared/dynamodb-call-deadline.test.ts
 * checks they agree).
 */
export const SMITHY_CONTEXT_KEY = '__smithy_context' as const;

/**
 * Nothing left for the SDK to look up in files on the first call (SETTLED_SDK_CONFIG), with DynamoDB's own:
 * its default of 4 attempts, which every call's deadline (DYNAMODB_CALL_DEADLINE_MS) bounds, account-ID
 * endpoints where the credentials name an account, no endpoint discovery.
 */
export const SETTLED_CLIENT_CONFIG = {
  ...SETTLED_SDK_CONFIG,
  maxAttempts: 4,
  accountIdEndpointMode: 'preferred',
  endpointDiscoveryEnabled: false,
} as const satisfies DynamoDBClientConfig;

/**
 * The project's DynamoDB client.
 *
 * - Every call has a total deadline (`callDeadlineMs`, DYNAMODB_CALL_DEADLINE_MS but in tests, retries
 *   included): writes are group-committed (`payouts/store/write-coalescer.ts`), so a request that hung would
 *   hold up the writes queued behind it, not just its own caller, and the limits proof counts each call at that
 *   bound. The call rejects then with a `TimeoutError`, and the signal the SDK's retry loop reads is aborted,
 *   so no further attempt or backoff starts; an attempt in flight is
 *   left to its own timeouts (REQUEST_HANDLER) and its answer dropped. A timed-out write is retried by the SDK
 *   within the deadline; the conditions on every write make a retry of one that did commit fail instead of
 *   apply twice, and a write abandoned at the deadline is as uncertain as a timed-out one always was.
 * - A single-item write refused with `TransactionConflictException` (its item was in a transaction at that
 *   moment: the controls item a refund claim checks, a cap counter) is sent again after a jittered pause, at
 *   most MAX_CONFLICT_RETRIES times, inside the same deadline (sendRetryingConflicts). The SDK does not retry it.
 * - Nothing left for the SDK to look up in files on the first call (SETTLED_CLIENT_CONFIG).
 * - Answers read as the Node streams they are (collectResponseBody), without loading web streams on the first.
 * - No SDK logger middleware. The project logs its own decisions and never passes the SDK a logger, yet the
 *   middleware still runs the SDK's no-op logger and, to feed it, walks every request and response through the
 *   sensitive-field filter: about 1 % of the engine's CPU for nothing. Errors still reach the callers.
 */
export function createDynamoDbClient(
  config: DynamoDBClientConfig = {},
  callDeadlineMs = DYNAMODB_CALL_DEADLINE_MS,
): DynamoDBClient {
  const client = new DynamoDBClient({
    ...SETTLED_CLIENT_CONFIG,
    requestHandler: REQUEST_HANDLER,
    streamCollector: collectResponseBody,
    ...config,
  });
  client.middlewareStack.remove('loggerMiddleware');
  client.middlewareStack.add(
    (next, context) => (args) => withinCallDeadline(callDeadlineMs, context, () => next(args)),
    {
      step: 'initialize',
      name: 'deadline',
    },
  );
  // Inside the deadline (same step, lower priority: it runs after it), so the deadline bounds every resend and
  // pause; around serialization and the SDK's own retry loop, so each resend is a whole fresh send (request
  // built and signed again, its own retry budget) and conflicts never spend the SDK's retry quota.
  client.middlewareStack.add((next, context) => (args) => sendRetryingConflicts(() => next(args), context), {
    step: 'initialize',
    priority: 'low',
    name: 'transactionConflictRetry',
  });
  const waiting: (() => void)[] = [];
  sentWaiters.set(client, waiting);
  // The innermost middleware: `next` is the HTTP handler, which writes the request once its own promise jobs
  // have run; whoever waits for that is told after them.
  client.middlewareStack.add(
    (next) => (args) => {
      const answer = next(args);
      if (waiting.length > 0) {
        const told = waiting.splice(0);
        setImmediate(() => {
          for (const tell of told) tell();
        });
      }
      return answer;
    },
    { step: 'deserialize', priority: 'low', name: 'requestSent' },
  );
  return client;
}

const sentWaiters = new WeakMap<DynamoDBClient, (() => void)[]>();

/**
 * Resolves once the next request of `client` (one made by createDynamoDbClient, or a document client on it) has
 * been handed to the HTTP handler, its SDK steps done: work meant to overlap a round trip starts then, instead of
 * running in the middle of those steps and delaying the request (issue 18). On an open connection the request
 * is written by then. On a new one (a cold start's first request) it is written once the connection opens, which
 * waits for whatever synchronous work the waiter started (traced: after undici has loaded). Telling waiters only
 * once the bytes were written was measured and brought no row of the cold-start benchmark closer
 * (docs/cold-start.md). Never resolves if no request follows.
 */
export function nextRequestSent(client: DynamoDBClient): Promise<void> {
  const waiting = sentWaiters.get(client);
  if (!waiting) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => waiting.push(resolve));
}

/**
 * The writes DynamoDB refuses with `TransactionConflictException`, and the only ones retried for it: a refused
 * single-item write wrote nothing, so sending the same request again (conditional or not) is the same write.
 */
const SINGLE_ITEM_WRITES: ReadonlySet<string | undefined> = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
]);

/**
 * Sends a call, and sends it again after a jittered pause while a single-item write is refused only because its
 * item was part of a transaction in flight (`TransactionConflictException`, which the SDK's retry strategy does
 * not count as transient), at most MAX_CONFLICT_RETRIES times, as commitRetryingConflicts does for transactions.
 * Any other error, `ConditionalCheckFailedException` included, is thrown at once. No resend starts once the call's
 * deadline has passed: its caller already has its `TimeoutError` (the SDK's retry loop, which reads the same
 * signal, would refuse to start it too; checked here so this loop stops by itself).
 */
async function sendRetryingConflicts<T>(
  send: () => Promise<T>,
  context: HandlerExecutionContext,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const conflict =
        error instanceof Error &&
        error.name === 'TransactionConflictException' &&
        SINGLE_ITEM_WRITES.has(context.commandName);
      if (!conflict || attempt >= MAX_CONFLICT_RETRIES) throw error;
      await jitteredPause(attempt, CONFLICT_PAUSE_CAP_MS);
      if (context[SMITHY_CONTEXT_KEY]?.abortSignal?.aborted) throw error;
    }
  }
}

function withinCallDeadline<T>(
  deadlineMs: number,
  context: HandlerExecutionContext,
  call: () => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(deadlineMs);
  // Only the retry loop reads this one; a caller's own signal still reaches the HTTP handler (the command keeps
  // it), whose abort the SDK never retries.
  context[SMITHY_CONTEXT_KEY] = { ...context[SMITHY_CONTEXT_KEY], abortSignal: deadline };
  return Promise.race([
    call(),
    new Promise<never>((_resolve, reject) => {
      deadline.onabort = () => reject(deadline.reason);
    }),
  ]).finally(() => {
    // Let go of the race once answered: otherwise each call's answer stays reachable from its signal until the
    // deadline passes (thousands of calls a second in a sweep).
    deadline.onabort = null;
  });
}
