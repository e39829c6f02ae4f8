import type { MiddlewareStack } from '@smithy/types';
import { inSpan, SpanKinds } from '../shared/tracing.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/**
 * A client span for every call of the runtime's DynamoDB client (`DynamoDB.GetItem`, …), child of the active
 * span: the ADOT layer's AWS SDK instrumentation cannot see a bundled SDK. Added once per runtime by the
 * functions that trace (the API, the submission worker); a span is a no-op without a tracer provider.
 *
 * @example traceDynamoDbCalls(runtime);
 */
export function traceDynamoDbCalls(runtime: Runtime): void {
  once(runtime, 'dynamodb-tracing', () => {
    const stack = runtime.dynamoDb.middlewareStack as MiddlewareStack<object, object>;
    stack.add(
      (next, context) => (args) => {
        const operation = (context.commandName ?? 'unknown').replace(/Command$/, '');
        return inSpan(
          `DynamoDB.${operation}`,
          { kind: SpanKinds.client, attributes: { 'rpc.system': 'aws-api', 'rpc.method': operation } },
          () => next(args),
        );
      },
      { step: 'initialize', name: 'dynamoDbTracing', override: true },
    );
    return true;
  });
}
