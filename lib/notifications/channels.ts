import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { postText } from '../shared/http-post.js';
import { SignedAwsPost } from '../shared/signed-aws-post.js';
import { maskAccountNumbers, type Notification } from './notification.js';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from './webhook-signature.js';

/** One way a notification reaches people; throws when it did not, so the event is retried. */
export interface NotificationChannel {
  /** Its name in the delivery marker (`sns`, `webhook`): a channel that delivered is not sent to again. */
  readonly name: string;
  deliver(notification: Notification): Promise<void>;
}

export const CHANNEL_REQUEST_TIMEOUT_MS = 5_000;

export class NotificationDeliveryError extends Error {
  override readonly name = 'NotificationDeliveryError';
}

export interface SnsTopicOptions {
  readonly topicArn: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Where requests go; SNS's regional endpoint by default (`npm start`: its loopback stand-in). */
  readonly endpoint?: string;
}

/**
 * The notification topic on Amazon SNS: one `Publish` over SNS's query protocol, signed with SigV4 by the SDK's
 * own signer and posted with `postText`, as the submission queue does for SQS: the project ships no SNS client for
 * its one call. Email subscribers receive `subject` and `text`.
 */
export class SnsTopicChannel implements NotificationChannel {
  readonly name = 'sns';
  readonly #sns: SignedAwsPost;

  constructor(private readonly options: SnsTopicOptions) {
    this.#sns = new SignedAwsPost({
      service: 'sns',
      region: options.region,
      credentials: options.credentials,
      endpoint: new URL(options.endpoint ?? `https://sns.${options.region}.amazonaws.com`),
      timeoutMs: CHANNEL_REQUEST_TIMEOUT_MS,
    });
  }

  async deliver(notification: Notification): Promise<void> {
    const body = new URLSearchParams({
      Action: 'Publish',
      Version: '2010-03-31',
      TopicArn: this.options.topicArn,
      Subject: notification.subject,
      Message: notification.text,
    }).toString();
    const { status } = await this.#sns.post({ 'content-type': 'application/x-www-form-urlencoded' }, body);
    // The answer's text is never echoed: an error page could quote the request.
    if (status < 200 || status > 299) throw new NotificationDeliveryError(`SNS Publish answered ${status}`);
  }
}

/** The webhook's address and signing key, as its secret holds them (`{ "url", "signingKey" }`). */
export interface WebhookTarget {
  readonly url: string;
  readonly signingKey: string;
}

/**
 * An outbound webhook (a Slack or Teams workflow, or any receiver): the notification as JSON (`text` and its
 * `fields`), signed with HMAC-SHA256 over `<timestamp>.<body>` (webhook-signature.ts). The target is read on each
 * delivery from `target` (the secret, cached by its reader), so a rotated key or URL is used without a deploy.
 */
export class WebhookChannel implements NotificationChannel {
  readonly name = 'webhook';

  constructor(
    private readonly target: () => Promise<WebhookTarget>,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async deliver(notification: Notification): Promise<void> {
    const { url, signingKey } = await this.target();
    const body = JSON.stringify({
      // The receiver's key to drop a repeat; masked like the rest of the message.
      eventId: maskAccountNumbers(notification.eventId),
      detailType: notification.detailType,
      subject: notification.subject,
      text: notification.text,
      fields: notification.fields,
    });
    const timestamp = this.nowSeconds();
    const { status } = await postText(
      new URL(url),
      {
        'content-type': 'application/json',
        [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
        [WEBHOOK_SIGNATURE_HEADER]: signWebhook(signingKey, timestamp, body),
      },
      body,
      CHANNEL_REQUEST_TIMEOUT_MS,
    );
    // Never the URL in the error: a workflow's URL is itself a credential.
    if (status < 200 || status > 299) throw new NotificationDeliveryError(`the webhook answered ${status}`);
  }
}
