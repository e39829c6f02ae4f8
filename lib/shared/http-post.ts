import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** The answer to a POST: its status and its body as text. */
export interface PostAnswer {
  readonly status: number;
  readonly text: string;
}

/** Connections kept per origin: the most requests one caller has in flight (the sweeper's 16 batches). */
const MAX_SOCKETS = 16;

/** Keep-alive, so the batches of one sweep, and of the next warm invocation, reuse their connections. */
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
};

/**
 * One POST over Node's own `http`/`https`, which the AWS SDK's clients already load, and use, in every function.
 *
 * Why not the global `fetch`: it loads Node's built-in undici on its first call, about 13 ms of a cold start
 * spent before the request leaves (measured with `BENCH_TRACE_DIR`, docs/benchmarks.md: the deployed sweeper's
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
