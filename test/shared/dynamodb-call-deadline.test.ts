import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { SMITHY_CONTEXT_KEY as SDK_CONTEXT_KEY } from '@smithy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { createRuntime } from '../../lib/runtime/runtime.js';
import {
  createDynamoDbClient,
  DYNAMODB_CALL_DEADLINE_MS,
  REQUEST_HANDLER,
  SMITHY_CONTEXT_KEY,
} from '../../lib/shared/dynamodb-client.js';
import { underCollections } from '../support/garbage-collection.js';
import { type SilentServer, startSilentServer } from '../support/silent-server.js';

const get = new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } });
let silent: SilentServer;
beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(async () => silent?.close());

async function timed<T>(work: () => Promise<T>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await work();
    return { error: undefined, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}

describe('a DynamoDB call against a peer that never answers', () => {
  it('is retried by the SDK after each per-attempt timeout: the attempt timeouts alone do not bound a call', async () => {
    const client = createDynamoDbClient(
      {
        endpoint: silent.url,
        ...localAwsConfig,
        requestHandler: { connectionTimeout: 100, requestTimeout: 100, throwOnRequestTimeout: true },
      },
      20_000,
    );
    try {
      const before = silent.connections();
      const { error } = await timed(() => client.send(get));
      expect(error).toMatchObject({ name: 'TimeoutError' });
      // DynamoDB's default in this SDK (client-dynamodb's runtimeConfig: 4 attempts under the 2026 retry
      // defaults), each on a connection of its own: unbounded, one call could take 4 x 13 s plus backoff.
      expect(silent.connections() - before).toBe(4);
    } finally {
      client.destroy();
    }
  });

  it('fails at its total deadline with a TimeoutError, and the SDK starts no further attempt', async () => {
    const client = createDynamoDbClient({ endpoint: silent.url, ...localAwsConfig, maxAttempts: 3 }, 300);
    try {
      const before = silent.connections();
      const { error, ms } = await timed(() => client.send(get));
      expect(error).toMatchObject({ name: 'TimeoutError' });
      expect(ms).toBeGreaterThanOrEqual(290);
      expect(ms).toBeLessThan(300 + 1_000);
      expect(silent.connections() - before).toBe(1);
    } finally {
      client.destroy();
    }
  });

  it('fails at its total deadline while garbage is collected every 2 ms (a deadline nobody holds is collected)', async () => {
    const client = createDynamoDbClient({ endpoint: silent.url, ...localAwsConfig, maxAttempts: 3 }, 300);
    try {
      const { error } = await underCollections(() => timed(() => client.send(get)));
      expect(error).toMatchObject({ name: 'TimeoutError' });
    } finally {
      client.destroy();
    }
  });

  it('keeps a caller’s own, shorter signal', async () => {
    const client = createDynamoDbClient({ endpoint: silent.url, ...localAwsConfig }, 5_000);
    try {
      const { error, ms } = await timed(() => client.send(get, { abortSignal: AbortSignal.timeout(100) }));
      expect(error).toBeDefined();
      expect(ms).toBeLessThan(5_000);
    } finally {
      client.destroy();
    }
  });
});

describe('the deadline production uses', () => {
  it('hands the SDK its signal where the SDK reads it', () => {
    expect(SMITHY_CONTEXT_KEY).toBe(SDK_CONTEXT_KEY);
  });

  it('is DYNAMODB_CALL_DEADLINE_MS, the per-call bound test/infra/handler-limits.test.ts counts', () => {
    // One attempt to its timeouts fits; so does a quick failure and its retry.
    expect(DYNAMODB_CALL_DEADLINE_MS).toBeGreaterThanOrEqual(
      REQUEST_HANDLER.connectionTimeout + REQUEST_HANDLER.requestTimeout,
    );
    const runtime = createRuntime({
      TABLE_NAME: 't',
      DYNAMODB_ENDPOINT: silent.url,
      PROVIDER_BASE_URL: 'http://127.0.0.1:9',
      PROVIDER_TOKEN: 'token',
      PROVIDER_PIN: '0000',
    });
    try {
      // The runtime passes no deadline of its own: its client's calls are bounded by the default, the constant.
      expect(runtime.dynamoDb.middlewareStack.identify()).toContain('deadline - initialize');
    } finally {
      void runtime.close();
    }
  });
});
