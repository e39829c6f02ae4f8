import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { PayoutFunction } from './payout-function.js';

export interface NotificationsProps {
  readonly stage: string;
  /** Who receives notifications by email (each confirms the subscription AWS sends). */
  readonly emails: readonly string[];
  /** Also a signed webhook; its URL and signing key are a secret an operator fills in (docs/deploy.md). */
  readonly webhook: boolean;
}

/**
 * Where people are told that something waits for them (docs/operations.md, "Notifications"): a KMS-encrypted SNS
 * topic with the stage's email subscribers, and optionally a webhook whose URL and HMAC key are one secret under
 * a key of its own. The notifier function (notify-approvers) publishes to both; nothing else may.
 */
export class Notifications extends Construct {
  readonly topic: Topic;
  readonly webhookSecret?: Secret;

  constructor(scope: Construct, id: string, props: NotificationsProps) {
    super(scope, id);
    const key = new Key(this, 'TopicKey', {
      description: `Encrypts payouts notifications to people (${props.stage})`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.topic = new Topic(this, 'Topic', {
      displayName: `Payouts notifications (${props.stage})`,
      masterKey: key,
      enforceSSL: true,
    });
    for (const email of props.emails) this.topic.addSubscription(new EmailSubscription(email));
    if (!props.webhook) return;
    const secretKey = new Key(this, 'WebhookKey', {
      description: `Encrypts the notification webhook's URL and signing key (${props.stage})`,
      enableKeyRotation: true,
      rotationPeriod: Duration.days(365),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.webhookSecret = new Secret(this, 'WebhookSecret', {
      description: `Notification webhook (${props.stage}), JSON { "url", "signingKey" }; readable by the notifier only`,
      encryptionKey: secretKey,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.webhookSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The URL is issued by the receiving workflow (Slack, Teams) and the signing key is shared with the receiver by hand: a rotation Lambda can change neither end. Operators replace the value (docs/operations.md, "Notifications"); the notifier re-reads it within five minutes.',
    });
  }

  /** The notifier: publishes to the topic, reads the webhook secret. */
  bindNotifier(fn: PayoutFunction): void {
    this.topic.grantPublish(fn.function);
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      reason:
        "CDK's grantPublish on a KMS-encrypted topic: SNS generates the message's data key with the topic's key (named, not a wildcard resource) on the publisher's behalf.",
    });
    fn.addEnvironment({ NOTIFY_TOPIC_ARN: this.topic.topicArn });
    if (this.webhookSecret) {
      this.webhookSecret.grantRead(fn.function);
      fn.addEnvironment({ NOTIFY_WEBHOOK_SECRET_ID: this.webhookSecret.secretArn });
    }
  }
}
