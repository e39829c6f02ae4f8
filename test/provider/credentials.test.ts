import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import {
  CredentialsError,
  EnvCredentialsSource,
  StaticCredentialsSource,
} from '../../lib/provider/credentials.js';
import {
  SecretsManagerCredentialsSource,
  type SecretsManagerLike,
} from '../../lib/provider/secrets-manager-credentials.js';

function fakeSecretsManager(answers: (string | Error | undefined)[]) {
  const requests: unknown[] = [];
  const client: SecretsManagerLike = {
    send: (async (command: unknown) => {
      if (!(command instanceof GetSecretValueCommand)) throw new Error('unexpected command');
      requests.push(command.input);
      const answer = answers.length > 1 ? answers.shift() : answers[0];
      if (answer instanceof Error) throw answer;
      return { SecretString: answer };
    }) as SecretsManagerLike['send'],
  };
  return { client, requests };
}

describe('StaticCredentialsSource', () => {
  it('returns its credentials', async () => {
    await expect(new StaticCredentialsSource({ token: 't', pin: 'p' }).get()).resolves.toEqual({
      token: 't',
      pin: 'p',
    });
  });
});

describe('EnvCredentialsSource', () => {
  it('reads PROVIDER_TOKEN and PROVIDER_PIN on every call', async () => {
    const env: NodeJS.ProcessEnv = { PROVIDER_TOKEN: 'a', PROVIDER_PIN: '1' };
    const source = new EnvCredentialsSource(env);
    await expect(source.get()).resolves.toEqual({ token: 'a', pin: '1' });
    env.PROVIDER_TOKEN = 'b';
    await expect(source.get({ forceRefresh: true })).resolves.toEqual({ token: 'b', pin: '1' });
  });

  it('throws when a variable is missing', async () => {
    await expect(new EnvCredentialsSource({ PROVIDER_TOKEN: 'a' }).get()).rejects.toBeInstanceOf(
      CredentialsError,
    );
  });
});

describe('SecretsManagerCredentialsSource', () => {
  it('reads the JSON secret and caches it for the TTL', async () => {
    let now = 0;
    const { client, requests } = fakeSecretsManager([
      '{"token":"t1","pin":"p1"}',
      '{"token":"t2","pin":"p2"}',
    ]);
    const source = new SecretsManagerCredentialsSource({
      secretId: 'arn:secret',
      client,
      ttlMs: 1_000,
      now: () => now,
    });
    await expect(source.get()).resolves.toEqual({ token: 't1', pin: 'p1' });
    now = 999;
    await expect(source.get()).resolves.toEqual({ token: 't1', pin: 'p1' });
    expect(requests).toEqual([{ SecretId: 'arn:secret' }]);
    now = 1_000;
    await expect(source.get()).resolves.toEqual({ token: 't2', pin: 'p2' });
    expect(requests).toHaveLength(2);
  });

  it('bypasses the cache on forceRefresh', async () => {
    const { client, requests } = fakeSecretsManager([
      '{"token":"t1","pin":"p1"}',
      '{"token":"t2","pin":"p2"}',
    ]);
    const source = new SecretsManagerCredentialsSource({ secretId: 's', client });
    await source.get();
    await expect(source.get({ forceRefresh: true })).resolves.toEqual({ token: 't2', pin: 'p2' });
    expect(requests).toHaveLength(2);
  });

  it('shares one fetch between concurrent callers', async () => {
    const { client, requests } = fakeSecretsManager(['{"token":"t1","pin":"p1"}']);
    const source = new SecretsManagerCredentialsSource({ secretId: 's', client });
    await Promise.all([source.get(), source.get(), source.get()]);
    expect(requests).toHaveLength(1);
  });

  it('rejects a secret that is not the expected JSON without echoing it', async () => {
    for (const secret of ['not json SECRETVALUE', '{"token":"SECRETVALUE"}', undefined]) {
      const { client } = fakeSecretsManager([secret]);
      const error = await new SecretsManagerCredentialsSource({ secretId: 's', client })
        .get()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CredentialsError);
      expect(String(error)).not.toContain('SECRETVALUE');
    }
  });

  it('wraps a Secrets Manager failure', async () => {
    const { client } = fakeSecretsManager([
      Object.assign(new Error('denied'), { name: 'AccessDeniedException' }),
    ]);
    const error = await new SecretsManagerCredentialsSource({ secretId: 's', client })
      .get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsError);
    expect(String(error)).toContain('AccessDeniedException');
  });
});
