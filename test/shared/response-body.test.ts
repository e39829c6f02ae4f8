import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { collectResponseBody } from '../../lib/shared/response-body.js';
import { withBundledFixture } from '../support/bundled-fixture.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A response from a server on 127.0.0.1 that writes `chunks` one by one, then ends or cuts the connection. */
async function responseOf(chunks: readonly string[], cut = false): Promise<IncomingMessage> {
  server = createServer((_request, response) => {
    const length = chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk), 0);
    response.writeHead(200, { 'content-length': String(cut ? length + 10 : length) });
    const write = (index: number) => {
      if (index === chunks.length) {
        if (cut) response.socket?.destroy();
        else response.end();
        return;
      }
      response.write(chunks[index], () => setImmediate(() => write(index + 1)));
    };
    write(0);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) =>
    get({ host: '127.0.0.1', port, path: '/', agent: false }, resolve).on('error', reject),
  );
}

describe('collectResponseBody', () => {
  it('collects a body written in chunks, in order, into an array of its own', async () => {
    const chunks = ['{"Items":', '[{"pk":{"S":"a"}}', ',{"pk":{"S":"b"}}]}'];
    const bytes = await collectResponseBody(await responseOf(chunks));
    expect(new TextDecoder().decode(bytes)).toBe(chunks.join(''));
    // The SDK re-types the array it gets: it must not be a Buffer, whose memory Node may share with others.
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer(bytes)).toBe(false);
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
  });

  it('collects an empty body', async () => {
    expect((await collectResponseBody(Readable.from([]))).byteLength).toBe(0);
  });

  it('rejects when the connection is cut before the body ends', async () => {
    await expect(collectResponseBody(await responseOf(['{"Items":['], true))).rejects.toThrow();
  });

  it('rejects a body that is not a Node stream', async () => {
    await expect(collectResponseBody(new Uint8Array([1]))).rejects.toBeInstanceOf(TypeError);
  });
});

describe('the project’s DynamoDB client on a cold start', () => {
  it('reads its first answer without loading web streams, which the SDK’s default client loads', async () => {
    // Bundled as the functions are (the SDK's own packages load web streams at import when not bundled).
    await withBundledFixture(join(import.meta.dirname, 'fixtures', 'first-answer.ts'), async (run) => {
      const [project, sdkDefault] = await Promise.all(
        (['project', 'sdk-default'] as const).map((client) =>
          run({ endpoint: inject('dynamoDbEndpoint'), client }),
        ),
      );
      expect(project).toEqual({ before: false, after: false });
      expect(sdkDefault).toEqual({ before: false, after: true });
    });
  }, 60_000);
});
