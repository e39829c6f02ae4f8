import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StageConfig } from '../../infra/config/stage-config.js';
import { VISIBILITY_TIMEOUT_FACTOR } from '../../infra/constructs/submission-queue.js';
import { assertDeployable, HANDLERS, type HandlerName } from '../../infra/handlers.js';
import { PayoutsStack } from '../../infra/stacks/payouts-stack.js';
import { stageConfigFromCdkJson, synthStack, testApp } from './support/synth.js';

let stack: PayoutsStack;
let template: Template;
let config: StageConfig;

beforeAll(() => {
  ({ stack, template } = synthStack('prod'));
  config = stageConfigFromCdkJson('prod');
});

const id = (element: unknown) => Stack.of(stack).getLogicalId(element as CfnElement);
const queueId = () => id(stack.submissionQueue?.node.defaultChild);
const queueArn = () => ({ 'Fn::GetAtt': [queueId(), 'Arn'] });
const fnId = (name: HandlerName) => id(stack.functions.get(name)?.function.node.defaultChild);

/** Every IAM action the handler's role may perform on the submission queue. */
function queueActionsOf(name: HandlerName): string[] {
  const roleId = id(stack.functions.get(name)?.function.role?.node.defaultChild);
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
  });
  return Object.values(policies)
    .flatMap(
      (policy) =>
        policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
    )
    .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(queueArn()))
    .flatMap((statement) => [statement.Action].flat());
}

describe('submission queue', () => {
  it('is FIFO in high-throughput mode, encrypted, with a visibility timeout six times the worker timeout', () => {
    const workerSeconds = HANDLERS['submit-payouts'].timeout.toSeconds();
    const queue = template.findResources('AWS::SQS::Queue')[queueId()];
    expect(queue?.Properties).toMatchObject({
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      SqsManagedSseEnabled: true,
      VisibilityTimeout: workerSeconds * VISIBILITY_TIMEOUT_FACTOR,
    });
    expect(queue?.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * workerSeconds);
    expect(queue?.Properties.ContentBasedDeduplication).toBeUndefined();
  });

  it('redrives to a FIFO dead-letter queue after the configured deliveries, and that queue alarms', () => {
    const dlq = stack.deadLetterQueues.get('submit-payouts');
    const dlqId = id(dlq?.node.defaultChild);
    const queue = template.findResources('AWS::SQS::Queue')[queueId()];
    expect(queue?.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: config.submission.maxReceiveCount,
    });
    expect(template.findResources('AWS::SQS::Queue')[dlqId]?.Properties).toMatchObject({
      FifoQueue: true,
      MessageRetentionPeriod: 1_209_600,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      Threshold: 1,
    });
  });

  it('alarms when its oldest request has waited an hour', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId(), 'QueueName'] } }],
      Threshold: 3600,
    });
  });

  it('feeds the workers with the stage batch size and maximum concurrency, with partial batch responses', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId('submit-payouts') },
      EventSourceArn: queueArn(),
      BatchSize: config.submission.batchSize,
      ScalingConfig: { MaximumConcurrency: config.submission.maxConcurrency },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  const senders: readonly HandlerName[] = [
    'sweep-due-payouts',
    'api-corrections',
    'settlement-available',
    'poll-settlements',
  ];

  it("may be sent to by the sweeper, the settlement's event and poll, and the API's corrections function (correction jobs) only, and consumed by the workers only", () => {
    for (const sender of senders) {
      expect(queueActionsOf(sender), sender).toContain('sqs:SendMessage');
      expect(queueActionsOf(sender), sender).not.toContain('sqs:ReceiveMessage');
    }
    expect(queueActionsOf('submit-payouts')).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']),
    );
    expect(queueActionsOf('submit-payouts')).not.toContain('sqs:SendMessage');
    for (const name of stack.functions.keys()) {
      if (senders.includes(name) || name === 'submit-payouts') continue;
      expect(queueActionsOf(name), name).toEqual([]);
    }
  });

  it('tells its senders where the queue is, and no other handler', () => {
    const urlOf = (name: HandlerName) =>
      template.findResources('AWS::Lambda::Function')[fnId(name)]?.Properties.Environment?.Variables
        .SUBMIT_QUEUE_URL;
    for (const name of senders) expect(urlOf(name), name).toEqual({ Ref: queueId() });
    for (const name of stack.functions.keys()) {
      if (!senders.includes(name)) expect(urlOf(name), name).toBeUndefined();
    }
  });
});

describe('a stack without the submission workers', () => {
  it('is refused while a function that hands them payouts is in it, naming those functions', () => {
    const withoutWorkers = (Object.keys(HANDLERS) as HandlerName[]).filter(
      (name) => name !== 'submit-payouts',
    );
    expect(
      () =>
        new PayoutsStack(testApp(), 'Payouts-without-workers', {
          stage: 'dev',
          config: stageConfigFromCdkJson('dev'),
          handlers: withoutWorkers,
        }),
    ).toThrow(
      `the submission workers (functions/submit-payouts.ts) must be deployed with the functions that hand them payouts: ${['api-corrections', 'sweep-due-payouts', 'poll-settlements', 'settlement-available'].join(', ')}`,
    );
  });

  it('is accepted when none of its functions hands the workers payouts', () => {
    expect(() => assertDeployable(['api-payouts', 'payout-requested', 'reconcile-payouts'])).not.toThrow();
    expect(() => assertDeployable(['sweep-due-payouts'])).toThrow(/payouts: sweep-due-payouts$/);
  });
});
