import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** The answer to a POST: its status and its body as text. */
export interface PostAnswer {
  readonly status: number;
  readonly text: string;
}

/** Connections kept per origin: the most requests one caller has in flight (the sweeper's 16 batches). */
const MAX_SOCKETS = 16;

/**
 * How long a connection may sit unused before it is closed (undici's default, as the provider's pool has it).
 * Node keeps an idle socket forever otherwise, and a Lambda frozen between invocations would wake up to reuse one
 * the far end closed long ago; the close is a timer, which fires before the next invocation's request.
 */
const IDLE_SOCKET_TIMEOUT_MS = 4_000;

/** Keep-alive, so the batches of one sweep, and of a warm invocation soon after, reuse their connections. */
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_SOCKET_TIMEOUT_MS }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_SOCKET_TIMEOUT_MS }),
};

/**
 * One POST over Node's own `http`/`https`, which the AWS SDK's clients already load, and use, in every function.
 *
 * Why not the global `fetch`: it loads Node's built-in undici on its first call, about 13 ms of a cold start
 * spent before the request leaves (measured with `BENCH_TRACE_DIR`, docs/cold-start.md: the deployed sweeper's
 * hand-over to SQS). The whole exchange, the body read included, ends within `timeoutMs`; past it the promise
 * rejects with the `TimeoutError` of `AbortSignal.timeout`, and the connection is closed.
 *
 * @example
 * const { status, text } = await postText(new URL('https://sqs.eu-west-1.amazonaws.com/'), headers, body, 5_000);
 */
export function postText(
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
): Promise<PostAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
  const send = protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // A timeout surfaces as Node's AbortError; its reason is the TimeoutError callers know from fetch.
    const fail = (error: unknown) => reject(signal.aborted ? signal.reason : error);
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: agents[protocol],
        signal,
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('close', () => {
          if (!response.complete) fail(new Error('the connection closed before the answer ended'));
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    request.on('error', fail);
    request.end(body);
  });
}
