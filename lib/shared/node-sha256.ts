import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { SourceData } from '@smithy/types';

/** SHA-256 and HMAC-SHA-256 from node:crypto in the shape the SigV4 signer takes (as @smithy/hash-node does). */
export class NodeSha256 {
  readonly #hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.#hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
}

function bytesOf(data: SourceData): string | Uint8Array {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}
