import type { APIGatewayProxyEventV2, APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { LOCAL_PRINCIPAL_HEADER, LOCAL_ROLES_HEADER } from '../api/index.js';
import type { OperatorTokenVerifier } from './operator-tokens.js';

/** How the local server tells who calls: a user pool's tokens, and whether a request without one is let through. */
export interface LocalIdentity {
  readonly verifier: OperatorTokenVerifier;
  /**
   * `LOCAL_TRUST_PRINCIPAL_HEADER=1`: a request without `Authorization` goes to the API as it came, and the API
   * takes `X-Ops-Principal` at its word. Unsafe (anyone on this machine is anyone), for tests and benchmarks.
   */
  readonly trustPrincipalHeader: boolean;
  /** Where the CLI signs in (`LOCAL_SIGN_IN_PATH`): what any app of the pool is configured with, no secret. */
  readonly signIn: LocalSignIn;
}

/** The local pool's sign-in settings, served at `LOCAL_SIGN_IN_PATH` for `payouts login`. */
export interface LocalSignIn {
  /** The Cognito API of the pool (cognito-local), e.g. `http://127.0.0.1:9229`. */
  readonly endpoint: string;
  readonly userPoolId: string;
  readonly clientId: string;
}

/**
 * Where the local server tells the CLI which pool and client to sign in with, outside the API's routes (as a
 * deployed stack's CloudFormation outputs do). Answered to anyone on this machine: it holds no secret.
 */
export const LOCAL_SIGN_IN_PATH = '/__local/sign-in';

/**
 * What API Gateway's JWT authorizer does in front of the API: a request with a valid ID token of the pool goes on
 * with the token's claims in `requestContext.authorizer.jwt.claims`, and the local identity headers dropped (the
 * token says who calls); any other is refused with the reason (401), and reaches no route.
 *
 * @example
 * const decided = await authorizeLocally(event, { verifier, trustPrincipalHeader: false });
 * if ('refused' in decided) // answer 401 with decided.refused
 */
export async function authorizeLocally(
  event: APIGatewayProxyEventV2,
  identity: LocalIdentity,
): Promise<APIGatewayProxyEventV2 | { readonly refused: string }> {
  const authorization = event.headers.authorization;
  if (authorization === undefined) {
    if (identity.trustPrincipalHeader) return event;
    return {
      refused:
        'no Authorization header: sign in (payouts login --user NAME) and send Authorization: Bearer <ID token>',
    };
  }
  const check = await identity.verifier.check(authorization);
  if (!check.ok) return { refused: check.reason };
  // The token goes no further than here (no route reads it, so nothing that logs a request can log it).
  const {
    [LOCAL_PRINCIPAL_HEADER]: _principal,
    [LOCAL_ROLES_HEADER]: _roles,
    authorization: _token,
    ...headers
  } = event.headers;
  const authorized: APIGatewayProxyEventV2WithJWTAuthorizer = {
    ...event,
    headers,
    requestContext: {
      ...event.requestContext,
      authorizer: { principalId: '', integrationLatency: 0, jwt: { claims: check.claims, scopes: [] } },
    },
  };
  return authorized;
}
