import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { NodeSha256 } from '../shared/node-sha256.js';

/** How the CLI reaches the ops API: signed with SigV4 in AWS, or with a user pool ID token on a local stack. */
export type OpsTarget =
  | {
      readonly kind: 'aws';
      readonly baseUrl: string;
      readonly region: string;
      readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
    }
  | {
      readonly kind: 'local';
      readonly baseUrl: string;
      /** The stored session's ID token (`payouts login`), sent as `Authorization: Bearer`. */
      readonly idToken?: string;
      /**
       * Sent as `X-Ops-Principal` when there is no session: only a stack started with
       * `LOCAL_TRUST_PRINCIPAL_HEADER=1` (tests) takes it; any other answers 401.
       */
      readonly principal?: string;
    };

export interface OpsRequest {
  readonly method: string;
  /** The route path, e.g. `/payouts/01J…/approve`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** A CSV file's text, sent as `text/csv` instead of a JSON body (`payout-runs create --body run.csv`). */
  readonly csv?: string;
  readonly idempotencyKey?: string;
}

export interface OpsResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the text when the answer is not JSON. */
  readonly body: unknown;
}

/**
 * The header that names the caller on a local stack started with LOCAL_TRUST_PRINCIPAL_HEADER=1 (tests); any other
 * local stack ignores it and wants a session's token, and AWS ignores it and takes the signer.
 */
const LOCAL_PRINCIPAL_HEADER = 'x-ops-principal';

/**
 * A client of the ops API. In AWS each request is signed with SigV4 for `execute-api`, as the API's IAM
 * authorizer requires, with the credentials of whoever runs it (the SDK's default chain: environment, SSO,
 * profile, …), so the approver recorded is the caller's own principal.
 *
 * @example
 * const client = new OpsClient({ kind: 'local', baseUrl: 'http://127.0.0.1:3000', idToken: session.idToken });
 * const { body } = await client.send({ method: 'GET', path: '/payouts', query: { status: 'needs_review' } });
 */
export class OpsClient {
  readonly #target: OpsTarget;
  readonly #signer: SignatureV4 | undefined;

  constructor(target: OpsTarget) {
    this.#target = target;
    this.#signer =
      target.kind === 'aws'
        ? new SignatureV4({
            service: 'execute-api',
            region: target.region,
            credentials: target.credentials,
            sha256: NodeSha256,
          })
        : undefined;
  }

  async send(request: OpsRequest): Promise<OpsResponse> {
    const url = new URL(this.#target.baseUrl.replace(/\/+$/, '') + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
    const body = request.csv ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    const headers: Record<string, string> = {
      host: url.host,
      accept: 'application/json',
      // Every command is JSON (or a CSV file), even without a body: the local stack refuses any other content
      // type on a write.
      ...((body !== undefined || request.method !== 'GET') && {
        'content-type': request.csv === undefined ? 'application/json' : 'text/csv',
      }),
      ...(request.idempotencyKey !== undefined && { 'idempotency-key': request.idempotencyKey }),
      ...(this.#target.kind === 'local' && localIdentityHeaders(this.#target)),
    };
    const signed = this.#signer
      ? (
          await this.#signer.sign({
            method: request.method,
            protocol: url.protocol,
            hostname: url.hostname,
            ...(url.port && { port: Number(url.port) }),
            path: url.pathname,
            query: Object.fromEntries(url.searchParams),
            headers,
            ...(body !== undefined && { body }),
          })
        ).headers
      : headers;
    // fetch sets Host itself from the URL, the same value that was signed.
    const { host: _host, ...sent } = signed;
    const response = await fetch(url, {
      method: request.method,
      headers: sent,
      ...(body !== undefined && { body }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '')
      parsed = JSON.parse(text);
    return { status: response.status, headers: Object.fromEntries(response.headers), body: parsed };
  }

  /**
   * Every item of a cursor-paginated list route, page after page (`items` and `nextCursor`, as
   * `GET /payouts` answers), stopping at the first answer that is not a 200.
   */
  async *paginate(request: OpsRequest): AsyncGenerator<unknown, OpsResponse | undefined> {
    let cursor: string | undefined;
    do {
      const response = await this.send({
        ...request,
        query: { ...request.query, ...(cursor !== undefined && { cursor }) },
      });
      if (response.status !== 200) return response;
      const page = response.body as { items?: unknown[]; nextCursor?: string };
      for (const item of page.items ?? []) yield item;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return undefined;
  }
}

/** Who a local request says it is: the session's token, else the name (which only a trusting stack takes). */
function localIdentityHeaders(target: { idToken?: string; principal?: string }): Record<string, string> {
  if (target.idToken !== undefined) return { authorization: `Bearer ${target.idToken}` };
  return target.principal === undefined ? {} : { [LOCAL_PRINCIPAL_HEADER]: target.principal };
}

/** The region of an `execute-api` URL (`https://abc.execute-api.eu-west-1.amazonaws.com`), if it names one. */
export function regionOfApiUrl(baseUrl: string): string | undefined {
  return /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(new URL(baseUrl).hostname)?.[1];
}

/** True for a URL on this machine: the local stack, where requests name a principal instead of signing. */
export function isLoopbackUrl(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
