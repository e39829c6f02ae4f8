import { describe, expect, it } from 'vitest';
import { classifyFailure } from '../../lib/provider/classify.js';
import {
  ProviderError,
  ProviderOutcomeUnknownError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../../lib/provider/errors.js';
import type { Failure } from '../../lib/provider/failure.js';
import { toTransportError } from '../../lib/provider/http-transport.js';

const net = (
  kind: Extract<Failure, { type: 'network' }>['kind'],
  phase: 'before-send' | 'after-send',
): Failure => ({
  type: 'network',
  kind,
  phase,
});

describe('classifyFailure', () => {
  it.each([
    [400, 'bad-request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not-found'],
    [422, 'unprocessable'],
    [409, 'other'],
  ])('maps %i to a rejection of kind %s for any method', (status, kind) => {
    for (const method of ['GET', 'POST', 'PATCH'] as const) {
      const error = classifyFailure(
        method,
        { type: 'http', status, providerMessage: 'nope' },
        { path: '/x' },
      );
      expect(error).toBeInstanceOf(ProviderRejectedError);
      expect(error).toMatchObject({
        status,
        kind,
        providerMessage: 'nope',
        code: 'PROVIDER_REJECTED',
        method,
        path: '/x',
      });
    }
  });

  it('maps 429 to unavailable with retryAfterMs for any method', () => {
    for (const method of ['GET', 'POST'] as const) {
      const error = classifyFailure(method, { type: 'http', status: 429, retryAfterMs: 3_000 });
      expect(error).toBeInstanceOf(ProviderUnavailableError);
      expect(error).toMatchObject({
        reason: 'rate-limited',
        retryAfterMs: 3_000,
        status: 429,
        code: 'PROVIDER_UNAVAILABLE',
      });
    }
  });

  it.each([500, 502, 503, 504, 408])(
    'maps %i to outcome unknown for POST/PATCH and unavailable for GET',
    (status) => {
      expect(classifyFailure('POST', { type: 'http', status })).toBeInstanceOf(ProviderOutcomeUnknownError);
      expect(classifyFailure('PATCH', { type: 'http', status })).toBeInstanceOf(ProviderOutcomeUnknownError);
      expect(classifyFailure('GET', { type: 'http', status })).toBeInstanceOf(ProviderUnavailableError);
    },
  );

  it('maps a failure before sending to unavailable, whatever the method', () => {
    for (const kind of ['connect-refused', 'connect-timeout', 'dns'] as const) {
      const error = classifyFailure('POST', net(kind, 'before-send'));
      expect(error).toBeInstanceOf(ProviderUnavailableError);
    }
    expect(classifyFailure('POST', net('connect-refused', 'before-send'))).toMatchObject({
      reason: 'connect-refused',
    });
  });

  it('maps timeouts, resets and aborts after sending to outcome unknown for POST/PATCH', () => {
    for (const kind of ['timeout', 'reset', 'aborted', 'other'] as const) {
      const post = classifyFailure('POST', net(kind, 'after-send'));
      expect(post).toBeInstanceOf(ProviderOutcomeUnknownError);
      expect(post.code).toBe('PROVIDER_OUTCOME_UNKNOWN');
      expect(classifyFailure('GET', net(kind, 'after-send'))).toBeInstanceOf(ProviderUnavailableError);
    }
    expect(classifyFailure('PATCH', net('timeout', 'after-send'))).toMatchObject({ reason: 'timeout' });
  });

  it('gives every error a name, a code and the base class', () => {
    const error = classifyFailure('GET', { type: 'http', status: 404 }, { path: '/x' });
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.name).toBe('ProviderRejectedError');
    expect(String(error)).toContain('ProviderRejectedError: provider rejected the request to GET');
  });

  it('keeps a cause', () => {
    const cause = new Error('inner');
    expect(classifyFailure('GET', { type: 'http', status: 500 }, { cause }).cause).toBe(cause);
  });
});

describe('toTransportError (undici error mapping)', () => {
  const coded = (code: string) => Object.assign(new Error(code), { code });

  it('treats connection errors as before-send', () => {
    expect(toTransportError(coded('ECONNREFUSED'), false, false)).toMatchObject({
      kind: 'connect-refused',
      phase: 'before-send',
    });
    expect(toTransportError(coded('UND_ERR_CONNECT_TIMEOUT'), false, false)).toMatchObject({
      kind: 'connect-timeout',
      phase: 'before-send',
    });
    expect(toTransportError(new AggregateError([coded('ECONNREFUSED')]), false, false)).toMatchObject({
      phase: 'before-send',
    });
  });

  it('treats everything else as after-send', () => {
    expect(toTransportError(coded('UND_ERR_HEADERS_TIMEOUT'), false, false)).toMatchObject({
      kind: 'timeout',
      phase: 'after-send',
    });
    expect(toTransportError(coded('UND_ERR_SOCKET'), false, false)).toMatchObject({
      kind: 'reset',
      phase: 'after-send',
    });
    expect(toTransportError(coded('UND_ERR_ABORTED'), false, true)).toMatchObject({
      kind: 'timeout',
      phase: 'after-send',
    });
    expect(toTransportError(coded('UND_ERR_ABORTED'), true, false)).toMatchObject({
      kind: 'aborted',
      phase: 'after-send',
    });
    expect(toTransportError(new Error('weird'), false, false)).toMatchObject({
      kind: 'other',
      phase: 'after-send',
    });
  });
});
