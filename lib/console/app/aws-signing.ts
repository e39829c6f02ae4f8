import { Sha256 } from '@aws-crypto/sha256-browser';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HostedSignInConfig } from './config.js';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  readonly expiresAt: number;
}

async function cognitoIdentity<T>(region: string, target: string, body: unknown): Promise<T> {
  const response = await fetch(`https://cognito-identity.${region}.amazonaws.com/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `AWSCognitoIdentityService.${target}`,
    },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`the identity pool refused ${target} (${response.status})`);
  return (await response.json()) as T;
}

/** The identity pool's credentials for the person's group role (the API is IAM-authorised). */
export async function credentialsForIdToken(
  config: HostedSignInConfig,
  idToken: string,
): Promise<AwsCredentials> {
  const logins = { [config.userPoolProviderName]: idToken };
  const { IdentityId } = await cognitoIdentity<{ IdentityId: string }>(config.region, 'GetId', {
    IdentityPoolId: config.identityPoolId,
    Logins: logins,
  });
  const { Credentials } = await cognitoIdentity<{
    Credentials: { AccessKeyId: string; SecretKey: string; SessionToken: string; Expiration: number };
  }>(config.region, 'GetCredentialsForIdentity', { IdentityId, Logins: logins });
  return {
    accessKeyId: Credentials.AccessKeyId,
    secretAccessKey: Credentials.SecretKey,
    sessionToken: Credentials.SessionToken,
    // Seconds since the epoch, as the service answers it.
    expiresAt: Credentials.Expiration * 1000,
  };
}

/** SigV4 headers for one API call (the AWS SDK's own signer). */
export async function signedHeaders(
  region: string,
  credentials: AwsCredentials,
  request: { method: string; url: URL; headers: Record<string, string>; body?: string },
): Promise<Record<string, string>> {
  const signer = new SignatureV4({ service: 'execute-api', region, credentials, sha256: Sha256 });
  const query: Record<string, string> = {};
  for (const [name, value] of request.url.searchParams) query[name] = value;
  const signed = await signer.sign({
    method: request.method,
    protocol: request.url.protocol,
    hostname: request.url.hostname,
    path: request.url.pathname,
    query,
    headers: { ...request.headers, host: request.url.host },
    ...(request.body !== undefined && { body: request.body }),
  });
  // The browser sets Host itself and refuses to be told.
  const { host: _host, ...headers } = signed.headers;
  return headers;
}
