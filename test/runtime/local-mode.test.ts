import { describe, expect, it } from 'vitest';
import { isLoopbackUrl, parseRuntimeEnv } from '../../lib/runtime/runtime-config.js';

/** Local mode refuses a real provider's URL, token and PIN (`npm start` once accepted them). */
const local = {
  TABLE_NAME: 'payouts',
  PROVIDER_BASE_URL: 'http://127.0.0.1:4010',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
  PROVIDER_TOKEN: 'live-token-NEVER-LOG',
  PROVIDER_PIN: '4821',
};

describe('local mode talks only to this machine', () => {
  it('refuses a real provider URL next to a real token and PIN, without echoing them', () => {
    for (const url of ['https://api.provider.example', 'http://10.0.0.5:4010', 'http://127.0.0.1.nip.io']) {
      const attempt = () => parseRuntimeEnv({ ...local, PROVIDER_BASE_URL: url });
      expect(attempt, url).toThrow(/PROVIDER_BASE_URL: in local mode must be a loopback URL/);
      expect(() => attempt()).not.toThrow(/NEVER-LOG|4821/);
    }
  });

  it('refuses a missing or remote DynamoDB endpoint, which would write to AWS', () => {
    const { DYNAMODB_ENDPOINT: _, ...withoutEndpoint } = local;
    expect(() => parseRuntimeEnv(withoutEndpoint)).toThrow(/DYNAMODB_ENDPOINT/);
    expect(() =>
      parseRuntimeEnv({ ...local, DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com' }),
    ).toThrow(/DYNAMODB_ENDPOINT/);
  });

  it('leaves AWS mode to the stage configuration', () => {
    const { PROVIDER_TOKEN: _t, PROVIDER_PIN: _p, DYNAMODB_ENDPOINT: _d, ...rest } = local;
    expect(() =>
      parseRuntimeEnv({
        ...rest,
        PROVIDER_BASE_URL: 'https://api.provider.example',
        PROVIDER_TOKEN_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:1:secret:p',
        AWS_LAMBDA_FUNCTION_NAME: 'api',
      }),
    ).not.toThrow();
  });

  it('knows loopback URLs from look-alikes', () => {
    for (const url of ['http://127.0.0.1:1', 'https://localhost', 'http://[::1]:3000', 'http://127.1.2.3']) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of [
      'http://localhost.evil.example',
      'http://user:pw@127.0.0.1.evil.example',
      'ftp://127.0.0.1',
      'http://0.0.0.0',
      'not a url',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });
});
