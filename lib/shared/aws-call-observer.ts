import type { MiddlewareStack } from '@smithy/types';

/** One AWS SDK call as the client is asked to make it, before signing: who, which operation, with what. */
export interface AwsCall {
  /** The function the runtime serves (`sweep-due-payouts`, ...), so calls of several handlers in one process stay apart. */
  readonly functionName: string;
  /** `DynamoDBClient`, `SecretsManagerClient`, `EventBridgeClient`. */
  readonly client: string;
  /** `TransactWriteItemsCommand`, `GetSecretValueCommand`, ... */
  readonly command: string;
  readonly input: unknown;
}

/** Told of every call before it is sent; may throw to refuse it (the IAM proof refuses what IAM would). */
export type AwsCallObserver = (call: AwsCall) => void | Promise<void>;

/**
 * Adds one middleware to an SDK client that reports each call, tagged with the function name, to `observer`.
 * Nothing is added without an observer: in Lambda the runtime is built without one.
 *
 * @example observeAwsCalls(dynamoDb, 'api', (call) => calls.push(call));
 */
export function observeAwsCalls<Input extends object, Output extends object>(
  client: { middlewareStack: MiddlewareStack<Input, Output> },
  functionName: string,
  observer: AwsCallObserver,
): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      await observer({
        functionName,
        client: context.clientName ?? 'unknown',
        command: context.commandName ?? 'unknown',
        input: args.input,
      });
      return next(args);
    },
    { step: 'initialize', name: 'awsCallObserver', override: true },
  );
}
