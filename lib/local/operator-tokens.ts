import { JwtVerifier } from 'aws-jwt-verify';
import { JwtExpiredError } from 'aws-jwt-verify/error';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';

/**
 * The claims of a verified token as API Gateway's JWT authorizer hands them to a function: each value a string,
 * number or boolean, an array claim (`cognito:groups`) as one string `[a b]`.
 */
export type GatewayClaims = Readonly<Record<string, string | number | boolean>>;

/** What checking an `Authorization` header found: the person's claims, or why they are not taken. */
export type TokenCheck =
  | { readonly ok: true; readonly claims: GatewayClaims }
  | { readonly ok: false; readonly reason: string };

/** Checks the bearer token of a request, as an API Gateway JWT authorizer in front of the API would. */
export interface OperatorTokenVerifier {
  check(authorization: string): Promise<TokenCheck>;
}

/**
 * Verifies ID tokens of one user pool (aws-jwt-verify): the signature against the pool's JWKS, `iss` (the pool),
 * `aud` (the app client), `token_use: id`, and expiry. The JWKS is fetched over plain HTTP because cognito-local
 * serves it on 127.0.0.1 (the library's own fetcher speaks only HTTPS); the caller passes a loopback URL.
 *
 * The reasons given never repeat the token or any part of it: they reach the caller and the logs.
 *
 * @example
 * const verifier = userPoolTokenVerifier({ issuer: pool.issuer, clientId: pool.clientId, jwksUri: pool.jwksUri });
 * const check = await verifier.check(`Bearer ${idToken}`); // { ok: true, claims: { sub: '…', 'cognito:groups': '[approver]' } }
 */
export function userPoolTokenVerifier(pool: {
  readonly issuer: string;
  readonly clientId: string;
  readonly jwksUri: string;
}): OperatorTokenVerifier {
  const jwksCache = new SimpleJwksCache({
    fetcher: {
      fetch: async (uri: string) => {
        const response = await fetch(uri);
        if (!response.ok) throw new Error(`the pool's JWKS answered HTTP ${response.status}`);
        return response.arrayBuffer();
      },
    },
  });
  const verifier = JwtVerifier.create(
    {
      issuer: pool.issuer,
      audience: pool.clientId,
      jwksUri: pool.jwksUri,
      // An access token names the client in `client_id`, not `aud`, and carries no profile: only ID tokens name
      // the person to the API, as API Gateway's JWT authorizer with this client as audience accepts.
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== 'id') throw new Error('not an ID token');
      },
    },
    { jwksCache },
  );
  return {
    async check(authorization) {
      const match = /^Bearer ([\w-]+\.[\w-]+\.[\w-]+)$/.exec(authorization.trim());
      if (!match?.[1]) {
        return { ok: false, reason: 'Authorization must be "Bearer <ID token>"' };
      }
      try {
        return { ok: true, claims: gatewayClaimsOf(await verifier.verify(match[1])) };
      } catch (error) {
        return {
          ok: false,
          reason:
            error instanceof JwtExpiredError
              ? 'the token has expired: sign in again (payouts login --user NAME)'
              : "the token is not a valid ID token of this stack's user pool",
        };
      }
    },
  };
}

/** A verified payload in the shape API Gateway gives claims (arrays as `[a b]`, objects as JSON). */
function gatewayClaimsOf(payload: JwtPayload): GatewayClaims {
  const claims: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      claims[name] = value;
    } else if (Array.isArray(value)) {
      claims[name] = `[${value.map(String).join(' ')}]`;
    } else if (value !== undefined && value !== null) {
      claims[name] = JSON.stringify(value);
    }
  }
  return claims;
}
