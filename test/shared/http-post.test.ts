import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postText } from '../../lib/shared/http-post.js';

/** A server on 127.0.0.1: `/echo` answers 201 with what it was sent, `/cut` closes mid-answer. */
let server: Server;
let base: URL;
let connections = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/cut') {
        response.writeHead(200, { 'content-length': '100' });
        response.write('part of it');
        request.socket.destroy();
        return;
      }
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ type: request.headers['content-type'], body: Buffer.concat(chunks).toString() }),
      );
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('postText', () => {
  it('answers the status and the body, and posts again on the same kept-alive connection', async () => {
    const before = connections;
    const first = await postText(new URL('/echo', base), { 'content-type': 'text/plain' }, 'ß one', 2_000);
    const second = await postText(new URL('/echo', base), { 'content-type': 'text/plain' }, 'two', 2_000);

    expect(first.status).toBe(201);
    expect(JSON.parse(first.text)).toEqual({ type: 'text/plain', body: 'ß one' });
    expect(JSON.parse(second.text)).toEqual({ type: 'text/plain', body: 'two' });
    expect(connections - before).toBe(1);
  });

  it('fails when the connection closes before the answer ends', async () => {
    await expect(postText(new URL('/cut', base), {}, '{}', 2_000)).rejects.toThrow();
  });
});
