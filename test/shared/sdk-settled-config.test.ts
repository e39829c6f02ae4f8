import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createSecretsManagerClient,
  SECRETS_MANAGER_CLIENT_CONFIG,
} from '../../lib/provider/secrets-manager-credentials.js';
import { createDynamoDbClient, SETTLED_CLIENT_CONFIG } from '../../lib/shared/dynamodb-client.js';
import { closedPort } from '../provider/support/http-server.js';
import { withBundledFixture } from '../support/bundled-fixture.js';
import type { FirstCallClient } from './fixtures/first-call-files.js';

/** A resolved client setting: a value, or a provider of one. */
async function resolved(setting: unknown): Promise<unknown> {
  return typeof setting === 'function' ? await (setting as () => unknown)() : setting;
}

/** What a client ends up with for each of `keys`. */
async function settings(config: object, keys: readonly string[]): Promise<Record<string, unknown>> {
  const values = config as Record<string, unknown>;
  return Object.fromEntries(await Promise.all(keys.map(async (key) => [key, await resolved(values[key])])));
}

// The SDK would read these from the environment first: with none set, it falls back to its files, then to its
// defaults, which is what a Lambda without them gets.
const SDK_VARIABLES =
  /^AWS_(MAX_ATTEMPTS|RETRY_MODE|DEFAULTS_MODE|USE_DUALSTACK_ENDPOINT|USE_FIPS_ENDPOINT|ACCOUNT_ID_ENDPOINT_MODE|AUTH_SCHEME_PREFERENCE|SDK_UA_APP_ID|ENABLE_ENDPOINT_DISCOVERY|ENDPOINT_DISCOVERY_ENABLED|DISABLE_CLOCK_SKEW_CORRECTION)$/;
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const name of Object.keys(process.env).filter((variable) => SDK_VARIABLES.test(variable))) {
    saved[name] = process.env[name];
    delete process.env[name];
  }
});
afterAll(() => {
  Object.assign(process.env, saved);
});

const base = { region: 'eu-west-1', credentials: { accessKeyId: 'settled', secretAccessKey: 'settled' } };

describe('the SDK settings given up front (no file is read on the first call)', () => {
  it('are for DynamoDB what the SDK resolves when nothing is configured', async () => {
    const plain = new DynamoDBClient(base);
    const settled = createDynamoDbClient(base);
    try {
      const keys = Object.keys(SETTLED_CLIENT_CONFIG).filter((key) => key !== 'endpointDiscoveryEnabled');
      expect(await settings(settled.config, keys)).toEqual(await settings(plain.config, keys));
      // Unset, endpoint discovery is off for every DynamoDB operation (each is optional): false says so.
      expect(await resolved(plain.config.endpointDiscoveryEnabled)).toBeFalsy();
      expect(await resolved(settled.config.endpointDiscoveryEnabled)).toBe(false);
    } finally {
      plain.destroy();
      settled.destroy();
    }
  });

  it('are for Secrets Manager what the SDK resolves when nothing is configured', async () => {
    const plain = new SecretsManagerClient(base);
    const settled = createSecretsManagerClient(base);
    try {
      const keys = Object.keys(SECRETS_MANAGER_CLIENT_CONFIG);
      expect(await settings(settled.config, keys)).toEqual(await settings(plain.config, keys));
    } finally {
      plain.destroy();
      settled.destroy();
    }
  });
});

describe('the first call of a cold start', () => {
  it('reads no file, with DynamoDB or Secrets Manager, where the SDK’s default clients read their config files', async () => {
    // Bundled as the functions are, and run in a fresh node with an empty home: what a Lambda has.
    const closed = await closedPort();
    await withBundledFixture(
      join(import.meta.dirname, 'fixtures', 'first-call-files.ts'),
      async (run, home) => {
        const files = async (client: FirstCallClient) => {
          const event = {
            endpoint: inject('dynamoDbEndpoint'),
            closedEndpoint: `http://127.0.0.1:${closed}`,
            client,
          };
          return ((await run(event)) as { read: string[] }).read;
        };
        const clients = ['project', 'project-secrets', 'sdk-default', 'sdk-default-secrets'] as const;
        const [project, projectSecrets, sdkDefault, sdkDefaultSecrets] = await Promise.all(
          clients.map(files),
        );
        expect(project).toEqual([]);
        expect(projectSecrets).toEqual([]);
        const configFiles = [join(home, '.aws', 'config'), join(home, '.aws', 'credentials')];
        expect(sdkDefault).toEqual(expect.arrayContaining(configFiles));
        expect(sdkDefaultSecrets).toEqual(expect.arrayContaining(configFiles));
      },
    );
  }, 60_000);
});
