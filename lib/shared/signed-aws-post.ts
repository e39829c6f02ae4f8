import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { type PostAnswer, postText } from './http-post.js';
import { NodeSha256 } from './node-sha256.js';

export interface SignedAwsPostOptions {
  /** The signing name of the service (`sqs`, `sns`). */
  readonly service: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Where requests go: the service's regional endpoint, or its loopback stand-in under `npm start`. */
  readonly endpoint: URL;
  /** The whole exchange ends within this (postText). */
  readonly timeoutMs: number;
}

/**
 * POSTs to an AWS service's root path, signed with SigV4 by the SDK's own signer and sent with `postText`: what
 * the submission queue (SQS) and the notifier (SNS) send, without loading an SDK client for one call each.
 */
export class SignedAwsPost {
  readonly #signer: SignatureV4;

  constructor(private readonly options: SignedAwsPostOptions) {
    this.#signer = new SignatureV4({
      service: options.service,
      region: options.region,
      credentials: options.credentials,
      sha256: NodeSha256,
    });
  }

  /** Signs and sends `body` with `headers` (besides `host`, which the signature covers). */
  async post(headers: Readonly<Record<string, string>>, body: string): Promise<PostAnswer> {
    const { endpoint } = this.options;
    const signed = await this.#signer.sign({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port && { port: Number(endpoint.port) }),
      path: '/',
      headers: { host: endpoint.host, ...headers },
      body,
    });
    return postText(new URL('/', endpoint), signed.headers, body, this.options.timeoutMs);
  }
}
