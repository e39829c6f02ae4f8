import type { Readable } from 'node:stream';

/**
 * Reads an AWS SDK response body to its bytes: the `streamCollector` of the project's SDK clients.
 *
 * Their HTTP handler (`@smithy/node-http-handler`) always answers with Node's `http.IncomingMessage`. The SDK's
 * default collector first asks whether the body is a `Blob` or a web `ReadableStream`, and the question alone
 * loads Node's web streams (the `ReadableStream` global is built on first access) on every cold start's first
 * answer, for a kind of body this handler never returns: 0.5 to 2.8 ms of a function's cold start in alternating
 * runs (issue 18, docs/cold-start.md). The bytes are the same: the chunks in order, in a `Uint8Array` of their
 * own (the SDK re-types the array it is given, so it must not be a Buffer shared with Node's pool).
 *
 * @throws TypeError for a body that is not a Node stream (another HTTP handler); never with this one
 */
export function collectResponseBody(body: unknown): Promise<Uint8Array> {
  if (!isNodeReadable(body)) {
    return Promise.reject(
      new TypeError('an SDK response body that is not a Node stream: the client has another HTTP handler'),
    );
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let length = 0;
    body.on('data', (chunk: Uint8Array) => {
      chunks.push(chunk);
      length += chunk.byteLength;
    });
    body.once('error', reject);
    body.once('end', () => {
      const bytes = new Uint8Array(length);
      let offset = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, offset);
        offset += chunk.byteLength;
      }
      resolve(bytes);
    });
  });
}

function isNodeReadable(body: unknown): body is Readable {
  return typeof body === 'object' && body !== null && typeof (body as Readable).on === 'function';
}
