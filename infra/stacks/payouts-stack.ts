import { Aws, CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { apiRouteTable, FALLBACK_API_FUNCTION } from '../../lib/api/functions/index.js';
import {
  APPROVAL_ENTITIES,
  MISMATCH_LINE_KINDS,
  PUBLISHED_OUTCOMES,
} from '../../lib/events/domain-events.js';
import { functionEnvironment } from '../config/function-environment.js';
import type { StageConfig } from '../config/stage-config.js';
import { Console } from '../constructs/console.js';
import { Data } from '../constructs/data.js';
import { deadLetterQueue } from '../constructs/dead-letter-queue.js';
import { DomainEvents } from '../constructs/domain-events.js';
import { Events } from '../constructs/events.js';
import { Monitoring } from '../constructs/monitoring.js';
import { Notifications } from '../constructs/notifications.js';
import { Operators } from '../constructs/operators.js';
import { OpsApi } from '../constructs/ops-api.js';
import { openTelemetryLayer, PayoutFunction } from '../constructs/payout-function.js';
import { Scheduling } from '../constructs/scheduling.js';
import { SubmissionQueue } from '../constructs/submission-queue.js';
import {
  assertDeployable,
  HANDLERS,
  type HandlerName,
  type HandlerSpec,
  ProviderAccess,
  presentHandlers,
} from '../handlers.js';

export interface PayoutsStackProps extends StackProps {
  readonly stage: string;
  readonly config: StageConfig;
  /** Handlers to deploy; defaults to every registered handler whose file exists in `functions/`. */
  readonly handlers?: readonly HandlerName[];
}

/** Wires the constructs together from the handler registry; no business logic lives here. */
export class PayoutsStack extends Stack {
  readonly data: Data;
  readonly events: Events;
  readonly functions = new Map<HandlerName, PayoutFunction>();
  readonly deadLetterQueues = new Map<string, IQueue>();
  readonly api?: OpsApi;
  /** The operators' user pool, groups and identity pool, deployed with the API. */
  readonly operators?: Operators;
  /** The finance team's console (S3 + CloudFront), deployed with the API unless `console.enabled` is false. */
  readonly console?: Console;
  /** The queue between the sweeper and the submission workers (with `submit-payouts` deployed). */
  readonly submissionQueue?: IQueue;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: PayoutsStackProps) {
    super(scope, id, props);
    const { stage, config } = props;
    const logRetention = config.logRetentionDays as RetentionDays;
    this.data = new Data(this, 'Data', { stage, deletionProtection: config.deletionProtection });
    this.events = new Events(this, 'Events', { stage });
    const scheduling = new Scheduling(this, 'Schedules');
    const notifications = new Notifications(this, 'Notifications', { stage, ...config.notifications });
    const runtimeEnvironment = functionEnvironment(stage, config);

    const deployed = props.handlers ?? presentHandlers();
    assertDeployable(deployed);
    const apiFunctions = new Map<string, IFunction>();
    // The queue exists with its consumer, which every function that sends to it is deployed with.
    const submissions = deployed.includes('submit-payouts')
      ? new SubmissionQueue(this, 'Submissions', {
          workerTimeout: HANDLERS['submit-payouts'].timeout,
          maxReceiveCount: config.submission.maxReceiveCount,
        })
      : undefined;
    if (submissions) this.deadLetterQueues.set('submit-payouts', submissions.deadLetterQueue);
    this.submissionQueue = submissions?.queue;

    // The ADOT layer, when the stage names one, for the functions that make spans.
    const otel = config.openTelemetry && openTelemetryLayer(this, config.openTelemetry);
    for (const name of deployed) {
      const spec = HANDLERS[name];
      const isScheduled = spec.trigger.kind === 'schedule';
      const fn = new PayoutFunction(this, name, {
        handlerFile: name,
        description: spec.description,
        logRetention,
        timeout: spec.timeout,
        ...(isScheduled &&
          config.scheduledFunctionConcurrency !== undefined && {
            reservedConcurrentExecutions: config.scheduledFunctionConcurrency,
          }),
        // The publisher reads only EVENT_BUS_NAME; every other handler builds the runtime from these.
        ...('table' in spec && { environment: runtimeEnvironment }),
      });
      if ('traces' in spec && otel) fn.addOpenTelemetry(otel);
      if ('table' in spec) {
        fn.bindTable(this.data.table, spec.table.access, spec.table.indexes, {
          batchWrites: 'batchWrites' in spec.table && spec.table.batchWrites,
          queriesTable: 'queriesTable' in spec.table && spec.table.queriesTable,
          deletesItems: 'deletesItems' in spec.table && spec.table.deletesItems,
          ...('writes' in spec.table && { writes: spec.table.writes }),
          ...('checks' in spec.table && { checks: spec.table.checks }),
        });
      }
      const { provider } = spec;
      if (provider !== ProviderAccess.None) {
        fn.bindProviderSecrets({
          token: this.data.providerTokenSecret,
          ...(provider === ProviderAccess.TokenAndPin && { pin: this.data.providerPinSecret }),
        });
      }
      if ('sendsTo' in spec && submissions) submissions.bindSender(fn);
      if ('notifies' in spec && spec.notifies) notifications.bindNotifier(fn);
      this.functions.set(name, fn);
      this.#acknowledgeFunctionFindings(fn);

      switch (spec.trigger.kind) {
        case 'api':
          apiFunctions.set(name, fn.function);
          break;
        case 'schedule': {
          const dlq = this.#asyncDeadLetterQueue(name, fn);
          scheduling.add({
            name,
            every: spec.trigger.every(config),
            handler: fn.function,
            deadLetterQueue: dlq,
            description: spec.description,
          });
          break;
        }
        case 'event': {
          const dlq = this.#asyncDeadLetterQueue(name, fn);
          this.events.route({
            detailType: spec.trigger.detailType,
            handler: fn.function,
            deadLetterQueue: dlq,
          });
          break;
        }
        case 'domain-event': {
          const dlq = this.#asyncDeadLetterQueue(name, fn);
          this.events.routeDomainEvents({
            name,
            detailTypes: spec.trigger.detailTypes,
            handler: fn.function,
            deadLetterQueue: dlq,
          });
          break;
        }
        case 'queue':
          submissions?.bindConsumer(fn, {
            batchSize: config.submission.batchSize,
            maxConcurrency: config.submission.maxConcurrency,
          });
          break;
        case 'stream': {
          const dlq = deadLetterQueue(this, `${name}-dlq`);
          this.deadLetterQueues.set(name, dlq);
          new DomainEvents(this, 'DomainEvents', {
            table: this.data.table,
            bus: this.events.bus,
            publisher: fn,
            deadLetterQueue: dlq,
            publishedStatuses: Object.keys(PUBLISHED_OUTCOMES),
            mismatchKinds: MISMATCH_LINE_KINDS,
            approvalEntities: APPROVAL_ENTITIES,
          });
          break;
        }
      }
    }

    if (apiFunctions.size > 0) {
      this.api = new OpsApi(this, 'OpsApi', {
        stage,
        functions: apiFunctions,
        // A stack deploying only some handlers declares only the routes of the API functions it deploys.
        routes: apiRouteTable().filter((route) => apiFunctions.has(route.functionName)),
        fallback: FALLBACK_API_FUNCTION,
        logRetention,
      });
      // People sign in to the operators' pool; the API functions learn its groups' roles and the machines'.
      const operators = new Operators(this, 'Operators', {
        stage,
        api: this.api.api,
        routes: apiRouteTable().filter((route) => apiFunctions.has(route.functionName)),
        retainPool: config.deletionProtection,
      });
      this.operators = operators;
      const apiEnvironment = {
        OPS_API_ROLES: JSON.stringify({ ...config.apiRoles, ...operators.apiRoles }),
        ...operators.apiEnvironment(),
      };
      for (const name of apiFunctions.keys())
        this.functions.get(name as HandlerName)?.addEnvironment(apiEnvironment);
      // The function serving /operators manages the pool: its id, and only the admin actions its calls need.
      for (const [name, fn] of this.functions) {
        const spec: HandlerSpec = HANDLERS[name];
        if (!spec.managesOperators || spec.managesOperators.length === 0) continue;
        fn.addEnvironment({ OPS_OPERATOR_USER_POOL_ID: operators.userPool.userPoolId });
        fn.function.addToRolePolicy(
          new PolicyStatement({
            actions: [...spec.managesOperators],
            resources: [operators.userPool.userPoolArn],
          }),
        );
      }
      new CfnOutput(this, 'OperatorsUserPoolId', { value: operators.userPool.userPoolId });
      new CfnOutput(this, 'OperatorsClientId', { value: operators.client.userPoolClientId });
      new CfnOutput(this, 'OperatorsIdentityPoolId', { value: operators.identityPool.ref });
      if (config.console.enabled) {
        this.console = new Console(this, 'Console', {
          stage,
          api: this.api.api,
          operators,
          signInDomainPrefix: config.console.signInDomainPrefix ?? `payouts-${stage}-${Aws.ACCOUNT_ID}`,
          timeZone: config.statementTimeZone,
        });
        new CfnOutput(this, 'ConsoleUrl', { value: this.console.url });
      }
    }

    this.events.restrictSources({
      producerRoleArns: config.eventProducerRoleArns,
      ...(this.functions.get('publish-domain-events')?.function.role && {
        publisher: this.functions.get('publish-domain-events')?.function.role,
      }),
    });
    this.#restrictProviderSecrets();

    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      functions: this.functions,
      deadLetterQueues: this.deadLetterQueues,
      reconcileLogs: this.functions.get('reconcile-payouts')?.logGroup,
      sweepLogs: this.functions.get('sweep-due-payouts')?.logGroup,
      api: this.api?.api,
      ...(this.submissionQueue && { submissionQueue: this.submissionQueue }),
      unknownAlarmMinutes: config.unknownAlarmMinutes,
      healthCanaryEvery: Duration.minutes(config.healthCanaryMinutes),
      alarmEmail: config.alarmEmail,
    });

    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'ProviderTokenSecretArn', { value: this.data.providerTokenSecret.secretArn });
    new CfnOutput(this, 'ProviderPinSecretArn', { value: this.data.providerPinSecret.secretArn });
    new CfnOutput(this, 'EventBusName', { value: this.events.bus.eventBusName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn });
    new CfnOutput(this, 'NotificationTopicArn', { value: notifications.topic.topicArn });
    if (notifications.webhookSecret) {
      new CfnOutput(this, 'NotificationWebhookSecretArn', { value: notifications.webhookSecret.secretArn });
    }
    if (this.api) new CfnOutput(this, 'OpsApiUrl', { value: this.api.api.apiEndpoint });
  }

  /**
   * One DLQ per asynchronously invoked handler, for both halves of delivery: the trigger (Scheduler or an
   * EventBridge rule) sends what it cannot deliver, Lambda sends invocations that failed after its retries.
   */
  #asyncDeadLetterQueue(name: string, fn: PayoutFunction): IQueue {
    const dlq = deadLetterQueue(this, `${name}-dlq`);
    this.deadLetterQueues.set(name, dlq);
    fn.function.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      onFailure: new SqsDestination(dlq),
    });
    return dlq;
  }

  /**
   * Each provider secret, and its key, refuses reading to every principal but the roles of the functions that
   * need it, whatever IAM policies elsewhere in the account allow (an explicit Deny in a resource or key policy
   * wins): the token to the functions that call the provider, the PIN to those that send money. Putting a new
   * value (PutSecretValue, which encrypts but never decrypts) stays with the account's administrators.
   */
  #restrictProviderSecrets(): void {
    const rolesOf = (needs: (access: ProviderAccess) => boolean) =>
      [...this.functions.entries()]
        .filter(([name]) => needs(HANDLERS[name].provider))
        .flatMap(([, fn]) => (fn.function.role ? [fn.function.role.roleArn] : []));
    const { providerTokenSecret, providerTokenKey, providerPinSecret, providerPinKey } = this.data;
    restrictReading(
      providerTokenSecret,
      providerTokenKey,
      rolesOf((access) => access !== ProviderAccess.None),
      'TokenOnlyForFunctionsThatCallTheProvider',
    );
    restrictReading(
      providerPinSecret,
      providerPinKey,
      rolesOf((access) => access === ProviderAccess.TokenAndPin),
      'PinOnlyForFunctionsThatSendMoney',
    );
  }

  #acknowledgeFunctionFindings(fn: PayoutFunction): void {
    Validations.of(fn).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'AWSLambdaBasicExecutionRole only allows creating log streams and putting log events; the function writes only to its own log group.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only actions without resource-level permissions use "*": xray:PutTraceSegments/PutTelemetryRecords (tracing) and, for the stream reader, dynamodb:ListStreams. Table, index and secret grants name their ARNs.',
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          'nodejs22.x is the runtime the project targets and tests against (TOOLCHAIN.md); moving to a newer runtime is a deliberate change with its own test run.',
      },
    );
  }
}

/**
 * Denies secretsmanager:GetSecretValue on `secret`, and kms:Decrypt with `key` (which Secrets Manager calls as the
 * reader), to every principal but `readers`; with no readers, to everyone.
 */
function restrictReading(secret: Secret, key: Key, readers: readonly string[], sid: string): void {
  const onlyReaders = readers.length > 0 && { conditions: { ArnNotEquals: { 'aws:PrincipalArn': readers } } };
  secret.addToResourcePolicy(
    new PolicyStatement({
      sid,
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['secretsmanager:GetSecretValue'],
      resources: ['*'],
      ...onlyReaders,
    }),
  );
  key.addToResourcePolicy(
    new PolicyStatement({
      sid,
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['kms:Decrypt'],
      resources: ['*'],
      ...onlyReaders,
    }),
  );
}
