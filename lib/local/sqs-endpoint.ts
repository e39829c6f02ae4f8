import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../shared/logger.js';
import { describeIssues, fieldIssues } from '../shared/validation.js';
import * as z from '../shared/zod.js';
import { LocalQueueError, type LocalSqsQueue } from './local-sqs-queue.js';
import { refusalOf } from './loopback-guard.js';
import { readBoundedBody } from './request-body.js';

const EntrySchema = z.object({
  Id: z.string().check(z.minLength(1), z.maxLength(80)),
  MessageBody: z.string().check(z.minLength(1), z.maxLength(256 * 1024)),
  MessageGroupId: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  MessageDeduplicationId: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  // String attributes only: what the project sends (SQS takes 10 per message).
  MessageAttributes: z.optional(
    z.record(
      z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,256}$/)),
      z.object({ DataType: z.literal('String'), StringValue: z.string().check(z.maxLength(1024)) }),
    ),
  ),
  MessageSystemAttributes: z.optional(
    z.object({
      AWSTraceHeader: z.object({
        DataType: z.literal('String'),
        StringValue: z.string().check(z.maxLength(1024)),
      }),
    }),
  ),
});
const SendMessageBatchSchema = z.object({
  QueueUrl: z.string(),
  Entries: z.array(EntrySchema).check(z.minLength(1), z.maxLength(10)),
});

const ChangeVisibilityBatchSchema = z.object({
  QueueUrl: z.string(),
  Entries: z
    .array(
      z.object({
        Id: z.string().check(z.minLength(1), z.maxLength(80)),
        ReceiptHandle: z.string().check(z.minLength(1), z.maxLength(1024)),
        // SQS's range: 0 s to 12 hours.
        VisibilityTimeout: z.int().check(z.nonnegative(), z.maximum(43_200)),
      }),
    )
    .check(z.minLength(1), z.maxLength(10)),
});

/** The actions served, by `X-Amz-Target`. */
const SEND = 'AmazonSQS.SendMessageBatch';
const CHANGE_VISIBILITY = 'AmazonSQS.ChangeMessageVisibilityBatch';

/** SQS's limit on one request (and on one message). */
const MAX_BODY_BYTES = 1024 * 1024;

export interface LocalSqsEndpoint {
  /** Where the SQS client sends requests (`SQS_ENDPOINT`). */
  readonly url: string;
  /** The queue's URL, as `SUBMIT_QUEUE_URL` names it. */
  readonly queueUrl: string;
  close(): Promise<void>;
}

/**
 * SQS's `SendMessageBatch` (JSON protocol, `AmazonSQS.SendMessageBatch`) on 127.0.0.1 for one local queue, so
 * `npm start` enqueues through the same client code (`SqsSubmissionQueue`) as the deployed sweeper, and
 * `ChangeMessageVisibilityBatch`, with which a worker hands a message back for a prompt redelivery. Requests
 * are not authenticated: only a local client is served, by the same loopback guard as the local API and bus
 * (a loopback Host, no foreign Origin, the JSON protocol's content type).
 *
 * @example
 * const endpoint = await serveLocalSqs(queue, { port: 0, logger });
 * // SUBMIT_QUEUE_URL=endpoint.queueUrl SQS_ENDPOINT=endpoint.url
 */
export async function serveLocalSqs(
  queue: LocalSqsQueue,
  options: { port: number; logger: Logger },
): Promise<LocalSqsEndpoint> {
  const path = `/000000000000/${queue.options.name}`;
  let queueUrl = '';
  let listeningPort = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refusal = refusalOf(req.method ?? 'GET', req.headers, listeningPort, [
      'application/x-amz-json-1.0',
    ]);
    if (refusal) return reply(res, refusal.status, error(refusal.code, refusal.message));
    if (req.method !== 'POST') return reply(res, 405, error('MethodNotAllowed', 'POST SQS actions here'));
    const target = req.headers['x-amz-target'];
    if (target !== SEND && target !== CHANGE_VISIBILITY) {
      return reply(
        res,
        400,
        error(
          'UnsupportedOperation',
          `only SendMessageBatch and ChangeMessageVisibilityBatch are served, not ${target}`,
        ),
      );
    }
    const raw = await readBoundedBody(req, MAX_BODY_BYTES);
    if (raw === undefined) return reply(res, 400, error('BatchRequestTooLong', 'the request is over 1 MiB'));
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return reply(res, 400, error('SerializationException', 'the body is not JSON'));
    }
    if (target === CHANGE_VISIBILITY) return changeVisibility(res, body);
    const parsed = SendMessageBatchSchema.safeParse(body);
    if (!parsed.success) {
      return reply(res, 400, error('InvalidParameterValue', describeIssues(fieldIssues(parsed.error))));
    }
    if (parsed.data.QueueUrl !== queueUrl) {
      return reply(res, 400, error('QueueDoesNotExist', 'the specified queue does not exist'));
    }
    try {
      const ids = queue.send(
        parsed.data.Entries.map((entry) => ({
          body: entry.MessageBody,
          ...(entry.MessageGroupId !== undefined && { groupId: entry.MessageGroupId }),
          ...(entry.MessageDeduplicationId !== undefined && {
            deduplicationId: entry.MessageDeduplicationId,
          }),
          ...(entry.MessageAttributes && {
            attributes: Object.fromEntries(
              Object.entries(entry.MessageAttributes).map(([name, value]) => [name, value.StringValue]),
            ),
          }),
          ...(entry.MessageSystemAttributes && {
            traceHeader: entry.MessageSystemAttributes.AWSTraceHeader.StringValue,
          }),
        })),
      );
      reply(res, 200, {
        Successful: parsed.data.Entries.map((entry, index) => ({ Id: entry.Id, MessageId: ids[index] })),
        Failed: [],
      });
    } catch (failure) {
      if (!(failure instanceof LocalQueueError)) throw failure;
      reply(res, 400, error('MissingParameter', failure.message));
    }
  };
  const changeVisibility = (res: ServerResponse, body: unknown) => {
    const parsed = ChangeVisibilityBatchSchema.safeParse(body);
    if (!parsed.success) {
      return reply(res, 400, error('InvalidParameterValue', describeIssues(fieldIssues(parsed.error))));
    }
    if (parsed.data.QueueUrl !== queueUrl) {
      return reply(res, 400, error('QueueDoesNotExist', 'the specified queue does not exist'));
    }
    const changed = parsed.data.Entries.map((entry) => ({
      entry,
      ok: queue.changeVisibility(entry.ReceiptHandle, entry.VisibilityTimeout),
    }));
    reply(res, 200, {
      Successful: changed.filter((one) => one.ok).map(({ entry }) => ({ Id: entry.Id })),
      Failed: changed
        .filter((one) => !one.ok)
        .map(({ entry }) => ({ Id: entry.Id, Code: 'ReceiptHandleIsInvalid', SenderFault: true })),
    });
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((failure: unknown) => {
      options.logger.error('local SQS: request failed', { error: String(failure) });
      if (!res.headersSent) reply(res, 500, error('InternalError', 'local SQS failure'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  listeningPort = port;
  const url = `http://127.0.0.1:${port}`;
  queueUrl = `${url}${path}`;
  return {
    url,
    queueUrl,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function error(type: string, message: string) {
  return { __type: `com.amazonaws.sqs#${type}`, message };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
  res.end(JSON.stringify(body));
}
