import { Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { parseStageConfig } from '../../infra/config/stage-config.js';
import { PayoutsStack } from '../../infra/stacks/payouts-stack.js';
import { DOMAIN_EVENT_SOURCE } from '../../lib/events/domain-events.js';
import { NOTIFIED_EVENTS } from '../../lib/notifications/index.js';
import { stageConfigFromCdkJson, testApp } from './support/synth.js';

/** The dev stage with notifications on: two email subscribers and the signed webhook. */
function notifyingStack() {
  const app = testApp();
  const config = parseStageConfig('dev', {
    ...stageConfigFromCdkJson('dev'),
    notifications: { emails: ['approvers@example.com', 'ops@example.com'], webhook: true },
  });
  const stack = new PayoutsStack(app, 'Payouts-dev', { stage: 'dev', config });
  return { app, stack };
}

describe('notifications in a stage that turns them on', () => {
  const { stack } = notifyingStack();
  const template = Template.fromStack(stack);
  const resolve = (value: unknown) => Stack.of(stack).resolve(value);
  const notifier = stack.functions.get('notify-approvers');

  it('routes the approval and alarm events of the engine to the notifier, and nothing inbound', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: [DOMAIN_EVENT_SOURCE], 'detail-type': [...NOTIFIED_EVENTS] },
      Targets: [{ Arn: resolve(notifier?.function.functionArn) }],
    });
  });

  it('subscribes the emails to a KMS-encrypted topic and gives the notifier the topic and the webhook secret', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 2);
    const topics = template.findResources('AWS::SNS::Topic', {
      Properties: { DisplayName: 'Payouts notifications (dev)' },
    });
    expect(Object.values(topics)[0]?.Properties.KmsMasterKeyId).toBeDefined();
    const child = notifier?.function.node.defaultChild as unknown as { ref: string } | undefined;
    const logicalId = resolve(child?.ref).Ref as string;
    const environment = template.toJSON().Resources[logicalId].Properties.Environment.Variables;
    expect(Object.keys(environment)).toEqual(
      expect.arrayContaining(['NOTIFY_TOPIC_ARN', 'NOTIFY_WEBHOOK_SECRET_ID', 'TABLE_NAME']),
    );
    // The secret's ARN only: its URL and key are never in the template.
    expect(JSON.stringify(environment)).not.toMatch(/NOTIFY_WEBHOOK_URL|SIGNING_KEY/);
  });

  it('lets only the notifier read the webhook secret', () => {
    const json = JSON.stringify(template.toJSON());
    const secretIds = Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((key) =>
      key.startsWith('NotificationsWebhookSecret'),
    );
    expect(secretIds).toHaveLength(1);
    const readers = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([, policy]) =>
      JSON.stringify(policy).includes(`"${secretIds[0]}"`),
    );
    expect(readers.map(([key]) => key)).toEqual([expect.stringMatching(/^notifyapprovers/)]);
    expect(json).not.toMatch(/hooks\.slack|signingKey"\s*:/);
  });

  it('passes cdk-nag with nothing unacknowledged', () => {
    const { app } = notifyingStack();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('refuses a stage whose notification email is not one, naming the field', () => {
    expect(() =>
      parseStageConfig('dev', {
        ...stageConfigFromCdkJson('dev'),
        notifications: { emails: ['not-an-email'] },
      }),
    ).toThrow(/notifications\.emails\.0/);
    expect(stageConfigFromCdkJson('dev').notifications).toEqual({ emails: [], webhook: false });
  });
});
