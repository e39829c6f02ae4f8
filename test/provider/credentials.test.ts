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
  it('returns its credentials, and holds no PIN when given none', async () => {
    const source = new StaticCredentialsSource({ token: 't', pin: 'p' });
    await expect(source.token()).resolves.toBe('t');
    await expect(source.pin()).resolves.toBe('p');
    const tokenOnly = new StaticCredentialsSource({ token: 't' });
    expect(tokenOnly.holdsPin).toBe(false);
    await expect(tokenOnly.pin()).rejects.toBeInstanceOf(CredentialsError);
  });
});

describe('EnvCredentialsSource', () => {
  it('reads PROVIDER_TOKEN and PROVIDER_PIN on every call', async () => {
    const env: NodeJS.ProcessEnv = { PROVIDER_TOKEN: 'a', PROVIDER_PIN: '1' };
    const source = new EnvCredentialsSource(env);
    await expect(source.token()).resolves.toBe('a');
    env.PROVIDER_TOKEN = 'b';
    await expect(source.token({ forceRefresh: true })).resolves.toBe('b');
    await expect(source.pin()).resolves.toBe('1');
  });

  it('throws when a variable is missing', async () => {
    await expect(new EnvCredentialsSource({ PROVIDER_TOKEN: 'a' }).pin()).rejects.toBeInstanceOf(
      CredentialsError,
    );
    await expect(new EnvCredentialsSource({}).token()).rejects.toBeInstanceOf(CredentialsError);
  });
});

// No Secrets Manager engine runs here, so its client is replaced by one answering from a list, in order.
describe('SecretsManagerCredentialsSource', () => {
  it('reads the token secret and caches it for the TTL', async () => {
    let now = 0;
    const { client, requests } = fakeSecretsManager(['{"token":"t1"}', '{"token":"t2"}']);
    const source = new SecretsManagerCredentialsSource({
      tokenSecretId: 'arn:token',
      client,
      ttlMs: 1_000,
      now: () => now,
    });
    await expect(source.token()).resolves.toBe('t1');
    now = 999;
    await expect(source.token()).resolves.toBe('t1');
    expect(requests).toEqual([{ SecretId: 'arn:token' }]);
    now = 1_000;
    await expect(source.token()).resolves.toBe('t2');
    expect(requests).toHaveLength(2);
  });

  it('reads the PIN from its own secret, and only when asked', async () => {
    const { client, requests } = fakeSecretsManager(['{"token":"t1"}', '{"pin":"p1"}']);
    const source = new SecretsManagerCredentialsSource({ tokenSecretId: 'tok', pinSecretId: 'pin', client });
    expect(source.holdsPin).toBe(true);
    await source.token();
    expect(requests).toEqual([{ SecretId: 'tok' }]);
    await expect(source.pin()).resolves.toBe('p1');
    expect(requests).toEqual([{ SecretId: 'tok' }, { SecretId: 'pin' }]);
  });

  it('without a PIN secret, refuses the PIN without calling Secrets Manager', async () => {
    const { client, requests } = fakeSecretsManager(['{"token":"t1"}']);
    const source = new SecretsManagerCredentialsSource({ tokenSecretId: 'tok', client });
    expect(source.holdsPin).toBe(false);
    await expect(source.pin()).rejects.toBeInstanceOf(CredentialsError);
    expect(requests).toEqual([]);
  });

  it('refuses a token secret that still holds the PIN, without echoing either', async () => {
    const { client } = fakeSecretsManager(['{"token":"SECRETVALUE","pin":"SECRETPIN"}']);
    const error = await new SecretsManagerCredentialsSource({ tokenSecretId: 'tok', client })
      .token()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsError);
    expect(String(error)).toMatch(/PIN has its own secret/);
    expect(String(error)).not.toMatch(/SECRETVALUE|SECRETPIN/);
  });

  it('bypasses the cache on forceRefresh', async () => {
    const { client, requests } = fakeSecretsManager(['{"token":"t1"}', '{"token":"t2"}']);
    const source = new SecretsManagerCredentialsSource({ tokenSecretId: 's', client });
    await source.token();
    await expect(source.token({ forceRefresh: true })).resolves.toBe('t2');
    expect(requests).toHaveLength(2);
  });

  it('shares one fetch between concurrent callers', async () => {
    const { client, requests } = fakeSecretsManager(['{"token":"t1"}']);
    const source = new SecretsManagerCredentialsSource({ tokenSecretId: 's', client });
    await Promise.all([source.token(), source.token(), source.token()]);
    expect(requests).toHaveLength(1);
  });

  it('rejects a secret that is not the expected JSON without echoing it', async () => {
    for (const secret of ['not json SECRETVALUE', '{"pin":"SECRETVALUE"}', '{"token":""}', undefined]) {
      const { client } = fakeSecretsManager([secret]);
      const error = await new SecretsManagerCredentialsSource({ tokenSecretId: 's', client })
        .token()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CredentialsError);
      expect(String(error)).not.toContain('SECRETVALUE');
    }
  });

  it('wraps a Secrets Manager failure', async () => {
    const { client } = fakeSecretsManager([
      Object.assign(new Error('denied'), { name: 'AccessDeniedException' }),
    ]);
    const error = await new SecretsManagerCredentialsSource({ tokenSecretId: 's', pinSecretId: 'p', client })
      .pin()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsError);
    expect(String(error)).toContain('AccessDeniedException');
    expect(String(error)).toContain('PIN secret');
  });
});
