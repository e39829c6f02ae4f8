import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../shared/logger.js';
import { refusalOf } from './loopback-guard.js';
import { readBoundedBody } from './request-body.js';

/** One message published to the local topic, as an email subscriber would receive it. */
export interface PublishedMessage {
  readonly topicArn: string;
  readonly subject: string;
  readonly message: string;
}

export interface LocalSnsEndpoint {
  /** Where the notifier's SNS requests go (`SNS_ENDPOINT`). */
  readonly url: string;
  /** The topic's ARN, as `NOTIFY_TOPIC_ARN` names it. */
  readonly topicArn: string;
  /** Every message published, oldest first. */
  readonly published: readonly PublishedMessage[];
  close(): Promise<void>;
}

/** SNS's limit on one message (256 KB) with room for the other fields. */
const MAX_BODY_BYTES = 512 * 1024;

/**
 * SNS's `Publish` (query protocol) on 127.0.0.1 for one local topic: `npm start` and the tests publish through the
 * same signed POST (`SnsTopicChannel`) as the deployed notifier, and read what an email subscriber would get from
 * `published` (and, with a logger, one log line per message). Behind the loopback guard of the other stand-ins.
 *
 * @example
 * const sns = await serveLocalSns({ port: 0 });
 * // NOTIFY_TOPIC_ARN=sns.topicArn SNS_ENDPOINT=sns.url
 */
export async function serveLocalSns(
  options: { readonly port?: number; readonly logger?: Logger } = {},
): Promise<LocalSnsEndpoint> {
  const topicArn = 'arn:aws:sns:local:000000000000:payouts-notifications';
  const published: PublishedMessage[] = [];
  let port = 0;
  const server: Server = createServer(async (req, res) => {
    const refusal = refusalOf(req.method ?? 'GET', req.headers, port, ['application/x-www-form-urlencoded']);
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': 'text/plain' }).end(refusal.message);
      return;
    }
    const body = await readBoundedBody(req, MAX_BODY_BYTES);
    const form = new URLSearchParams(body?.toString('utf8') ?? '');
    if (
      !body ||
      form.get('Action') !== 'Publish' ||
      form.get('TopicArn') !== topicArn ||
      !form.get('Message')
    ) {
      res
        .writeHead(400, { 'content-type': 'text/xml' })
        .end('<ErrorResponse><Error><Code>InvalidParameter</Code></Error></ErrorResponse>');
      return;
    }
    const message = { topicArn, subject: form.get('Subject') ?? '', message: form.get('Message') ?? '' };
    published.push(message);
    options.logger?.info('local SNS: notification published', { subject: message.subject });
    res
      .writeHead(200, { 'content-type': 'text/xml' })
      .end(
        `<PublishResponse><PublishResult><MessageId>local-${published.length}</MessageId></PublishResult></PublishResponse>`,
      );
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    topicArn,
    published,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
