/**
 * One simulated Lambda container of an ops API function, in a Node process of its own: the real handler
 * (BENCH_API_FUNCTION, e.g. `api-payout-runs`) behind API Gateway's event shape on 127.0.0.1, each request with
 * the function's own timeout as its time left (infra/handlers.ts), as Lambda gives it. Answers its URL over IPC.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { HANDLERS, type HandlerName } from '../infra/handlers.js';
import { freePort } from '../lib/local/free-port.js';
import { serveApiGatewayHandler } from '../lib/local/http-to-apigw.js';

export type ApiContainerAnswer = { readonly kind: 'ready'; readonly url: string; readonly pid: number };

type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

const name = process.env.BENCH_API_FUNCTION as HandlerName;
const timeoutMs = HANDLERS[name].timeout.toMilliseconds();
// The handlers log every request as they do in Lambda; here only their errors are shown (on stderr).
process.stdout.write = (chunk: string | Uint8Array) => {
  const line = String(chunk);
  if (line.includes('"level":"ERROR"')) process.stderr.write(line);
  return true;
};
const { handler } = (await import(`../functions/${name}.js`)) as { handler: ApiHandler };
const server = await serveApiGatewayHandler(
  (event) => {
    const deadline = performance.now() + timeoutMs;
    const context = {
      getRemainingTimeInMillis: () => Math.max(0, Math.floor(deadline - performance.now())),
    } as Context;
    return handler(event, context);
  },
  // A handler that throws is a bug the benchmark must show, on the coordinator's stderr.
  { port: await freePort(), onError: (error) => console.error('api container:', error) },
);
process.send?.({ kind: 'ready', url: server.url, pid: process.pid } satisfies ApiContainerAnswer);
process.on('message', () => process.exit(0));
