import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api/errors.js';
import { operatorOf } from '../../lib/api/principal.js';
import { verifiedCallerOf } from '../../lib/local/verified-caller.js';

const SUB = '0f6c1b7e-2a55-4a31-9d0e-4c0ce1f1b0a1';

/** A local request as the local server hands it on: with the claims of a token it verified, or none. */
function request(
  headers: Record<string, string>,
  claims?: Record<string, string | number | boolean | string[]>,
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/controls',
    rawQueryString: '',
    headers,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: '127.0.0.1',
      domainPrefix: 'local',
      http: { method: 'GET', path: '/controls', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: '' },
      requestId: 'r',
      routeKey: '$default',
      stage: '$default',
      time: '',
      timeEpoch: 0,
      ...(claims && { authorizer: { jwt: { claims, scopes: [] } } }),
    },
  } as APIGatewayProxyEventV2;
}

/** What npm start and the API harness give the router: the reader of verified claims. */
const local = { verifiedCaller: verifiedCallerOf };

describe('operatorOf in local mode', () => {
  it('is the person of the verified claims, with the roles of their groups as API Gateway lists them', () => {
    const operator = operatorOf(
      request(
        { 'x-ops-principal': 'carol' },
        { sub: SUB, 'cognito:username': 'bob', 'cognito:groups': '[approver]' },
      ),
      'local',
      local,
    );
    expect(operator.principal).toEqual({ id: `bob#cognito:${SUB}`, kind: 'user' });
    expect([...operator.roles].sort()).toEqual(['approver', 'viewer']);
  });

  it('takes the groups as an array too, and gives no role for a group that is not an operator group', () => {
    const operator = operatorOf(
      request({}, { sub: SUB, 'cognito:groups': ['requester', 'finance'] }),
      'local',
      local,
    );
    expect(operator.principal.id).toBe(`cognito:${SUB}`);
    expect([...operator.roles].sort()).toEqual(['requester', 'viewer']);
    expect(operatorOf(request({}, { sub: SUB }), 'local', local).roles.size).toBe(0);
  });

  it('refuses a request without claims when the header is not trusted, and takes the header when it is', () => {
    const named = request({ 'x-ops-principal': 'alice', 'x-ops-roles': 'approver' });
    expect(() => operatorOf(named, 'local', { ...local, localPrincipalHeader: 'ignored' })).toThrow(ApiError);
    try {
      operatorOf(named, 'local', { ...local, localPrincipalHeader: 'ignored' });
    } catch (error) {
      expect(error).toMatchObject({ status: 401, slug: 'unauthenticated' });
    }
    expect(operatorOf(named, 'local', local).principal.id).toBe('alice');
    expect(operatorOf(request({}, { sub: SUB }), 'local').principal.id).toBe('local-operator');
  });

  it('refuses claims without a user pool sub', () => {
    expect(() => operatorOf(request({}, { 'cognito:username': 'bob' }), 'local', local)).toThrow(
      /no user pool sub/,
    );
  });
});
