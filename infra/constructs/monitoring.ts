import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  SingleValueWidget,
  Stats,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { PayoutFunction } from './payout-function.js';

/** CloudWatch namespace of the engine's EMF metrics (`EmfMetricsSink`, lib/shared/emf-metrics.ts) and of the log metric filters. */
export const METRICS_NAMESPACE = 'Payouts';
/** The EMF sink adds the service as a dimension to every metric, as Powertools does. */
const SERVICE_DIMENSION = { service: 'payouts' };
const PERIOD = Duration.minutes(5);
/** Outcomes of a submission (`SubmitOutcome['kind']`), each counted as `PayoutSubmission_<kind>`. */
const SUBMISSION_OUTCOMES = ['succeeded', 'rejected', 'not_sent', 'unknown'] as const;

export interface MonitoringProps {
  readonly stage: string;
  readonly functions: ReadonlyMap<string, PayoutFunction>;
  readonly deadLetterQueues: ReadonlyMap<string, IQueue>;
  /** Log group of the reconciler, whose report (`needsReview`, `stillUnknown`) feeds the payout alarms. */
  readonly reconcileLogs?: ILogGroup;
  /** Log group of the sweeper, whose report (`missed`) feeds the missed-payout alarm. */
  readonly sweepLogs?: ILogGroup;
  readonly api?: HttpApi;
  /** The submission queue, whose oldest message's age alarms when the workers fall behind. */
  readonly submissionQueue?: IQueue;
  readonly unknownAlarmMinutes: number;
  readonly alarmEmail?: string;
  /** How often the health canary runs, with `health-canary` deployed: its alarm's period. */
  readonly healthCanaryEvery?: Duration;
}

/**
 * Alarms (to an SNS topic) and the operations dashboard. Payout states come from two sources: the
 * reconciler's and sweeper's end-of-run reports in their logs (metric filters, available as soon as the
 * handlers log), and the engine's EMF metrics.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const key = new Key(this, 'TopicKey', {
      description: `Encrypts payouts alarm notifications (${props.stage})`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // CloudWatch must be able to publish to the encrypted topic.
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'Alarms', {
      displayName: `Payouts alarms (${props.stage})`,
      masterKey: key,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    const payoutWidgets: IMetric[] = [];
    if (props.reconcileLogs) {
      const needsReview = this.#reportMetric(
        props.reconcileLogs,
        'ReconcileNeedsReview',
        'reconciliation finished',
        'needsReview',
      );
      const stillUnknown = this.#reportMetric(
        props.reconcileLogs,
        'ReconcileStillUnknown',
        'reconciliation finished',
        'stillUnknown',
      );
      payoutWidgets.push(needsReview, stillUnknown);
      this.#alarm('PayoutNeedsReview', {
        metric: new MathExpression({
          expression: 'FILL(logs, 0) + FILL(emf, 0)',
          usingMetrics: { logs: needsReview, emf: this.#emf('PayoutNeedsReview') },
          period: PERIOD,
          label: 'Payouts moved to needs_review',
        }),
        threshold: 1,
        evaluationPeriods: 1,
        description:
          'A payout reached needs_review: its outcome at the provider could not be decided. A person must check the provider record and resolve it; it stays in needs_review until then.',
      });
      const paidTwice = this.#reportMetric(
        props.reconcileLogs,
        'ReconcilePaidTwice',
        'reconciliation finished',
        'paidTwice',
      );
      payoutWidgets.push(paidTwice);
      this.#alarm('PayoutPaidTwice', {
        metric: new MathExpression({
          expression: 'FILL(logs, 0) + FILL(emf, 0)',
          usingMetrics: { logs: paidTwice, emf: this.#emf('PayoutPaidTwice') },
          period: PERIOD,
          label: 'Payouts found paid twice',
        }),
        threshold: 1,
        evaluationPeriods: 1,
        description:
          'A payout was paid twice: a record of an earlier attempt showed up at the provider after a new attempt (or after the payout was recorded as not paid). The payout is in needs_review with both transaction ids; recover the extra payment and resolve it.',
      });
      this.#alarm('StatementMismatch', {
        metric: this.#emf('StatementMismatch'),
        threshold: 1,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        description:
          'The daily statement found a provider debit no payout of ours made, a paid payout the provider does not list, an amount or fee that disagrees, or a payment made twice (docs/statements.md). Read GET /statements/<date>/lines?kind=<kind>; a double payment is already in needs_review.',
      });
      const periods = Math.max(1, Math.ceil(props.unknownAlarmMinutes / 5));
      this.#alarm('PayoutUnknownTooLong', {
        metric: stillUnknown.with({ statistic: Stats.MINIMUM }),
        threshold: 1,
        evaluationPeriods: periods,
        description: `Every reconciliation run for ${periods * 5} minutes left payouts in unknown: the provider lookup keeps failing or is ambiguous.`,
      });
      const openNeedsReview = this.#reportMetric(
        props.reconcileLogs,
        'ReconcileOpenNeedsReview',
        'reconciliation finished',
        'openNeedsReview',
      );
      payoutWidgets.push(openNeedsReview);
      this.#alarm('PayoutNeedsReviewTooLong', {
        metric: openNeedsReview.with({ statistic: Stats.MINIMUM }),
        threshold: 1,
        evaluationPeriods: periods,
        description: `Payouts have waited in needs_review for ${periods * 5} minutes: nobody has resolved them yet.`,
      });
    }
    if (props.sweepLogs) {
      const missed = this.#reportMetric(props.sweepLogs, 'SweepMissed', 'sweep finished', 'payouts.missed');
      payoutWidgets.push(missed);
      this.#alarm('PayoutMissed', {
        metric: missed,
        threshold: 1,
        evaluationPeriods: 1,
        description:
          'A scheduled payout was found later than the allowed lateness and marked missed (not paid).',
      });
    }
    this.#alarm('DailyCapExceeded', {
      metric: this.#emf('DailyCapExceeded'),
      threshold: 1,
      evaluationPeriods: 1,
      description: 'A payout was held back because its source wallet reached the daily cap.',
    });

    for (const [name, fn] of props.functions) {
      this.#alarm(`${name}-errors`, {
        metric: fn.function.metricErrors({ period: PERIOD, statistic: Stats.SUM }),
        threshold: 1,
        evaluationPeriods: 1,
        description: `The ${name} handler threw.`,
      });
      this.#alarm(`${name}-throttles`, {
        metric: fn.function.metricThrottles({ period: PERIOD, statistic: Stats.SUM }),
        threshold: 1,
        evaluationPeriods: 1,
        description: `The ${name} handler was throttled.`,
      });
    }
    for (const [name, queue] of props.deadLetterQueues) {
      this.#alarm(`${name}-dlq-depth`, {
        metric: queue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: Stats.MAXIMUM,
        }),
        threshold: 1,
        evaluationPeriods: 1,
        description: `Messages in the ${name} dead-letter queue: deliveries that failed after all retries. Inspect, fix, redrive.`,
      });
    }
    if (props.functions.has('health-canary') && props.healthCanaryEvery) {
      // The canary writes DeepHealthFailed (0 or 1) on every run: a 1 is a failed check, and no data is a
      // canary that did not run, which is no health check at all.
      this.#alarm('DeepHealthFailed', {
        metric: new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: 'DeepHealthFailed',
          dimensionsMap: SERVICE_DIMENSION,
          period: Duration.minutes(Math.max(5, props.healthCanaryEvery.toMinutes())),
          statistic: Stats.MAXIMUM,
        }),
        threshold: 1,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.BREACHING,
        description:
          'The health canary found the deep check failing (the table unreadable, the provider credentials unreadable, or the token refused: payouts would wait in pending), or did not run. Its ERROR log line names the check; GET /health?deep=true answers the same.',
      });
    }
    if (props.submissionQueue) {
      // A month-end backlog drains in minutes at the configured concurrency; an hour-old request means the
      // workers are not keeping up (throttled, failing, or held back by the provider's rate limit).
      this.#alarm('SubmissionBacklogTooOld', {
        metric: props.submissionQueue.metricApproximateAgeOfOldestMessage({
          period: Duration.minutes(5),
          statistic: Stats.MAXIMUM,
        }),
        threshold: 3600,
        evaluationPeriods: 1,
        description:
          'The oldest submission request has waited an hour: the submit-payouts workers are not draining the queue.',
      });
    }

    this.dashboard = this.#dashboard(props, payoutWidgets);
  }

  #emf(name: string, statistic: string = Stats.SUM): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: name,
      dimensionsMap: SERVICE_DIMENSION,
      period: PERIOD,
      statistic,
    });
  }

  /** Turns a numeric field of a handler's end-of-run log line into a metric. */
  #reportMetric(logGroup: ILogGroup, metricName: string, message: string, field: string): Metric {
    const filter = new MetricFilter(this, `${metricName}Filter`, {
      logGroup,
      metricNamespace: METRICS_NAMESPACE,
      metricName,
      filterPattern: FilterPattern.stringValue('$.message', '=', message),
      metricValue: `$.${field}`,
      defaultValue: 0,
    });
    return filter.metric({ period: PERIOD, statistic: Stats.SUM });
  }

  #alarm(
    id: string,
    options: {
      metric: IMetric;
      threshold: number;
      evaluationPeriods: number;
      description: string;
      treatMissingData?: TreatMissingData;
    },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data means nothing happened (no errors, no payouts in trouble), unless the alarm says otherwise.
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }

  #dashboard(props: MonitoringProps, payoutWidgets: IMetric[]): Dashboard {
    const dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `payouts-${props.stage}` });
    const search = (expression: string, label: string, statistic = 'Sum') =>
      new MathExpression({
        expression: `SEARCH('{${METRICS_NAMESPACE},service,type} MetricName="${expression}"', '${statistic}', 300)`,
        label,
        period: PERIOD,
      });
    dashboard.addWidgets(
      new TextWidget({
        markdown: `# Payouts (${props.stage})\nOutcomes, provider latency and amounts from the engine's EMF metrics (namespace \`${METRICS_NAMESPACE}\`); alarms notify the SNS topic.`,
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Submission outcomes',
        left: SUBMISSION_OUTCOMES.map((outcome) => search(`PayoutSubmission_${outcome}`, outcome)),
        width: 12,
      }),
      new GraphWidget({
        title: 'Payouts in trouble (needs review, unknown, missed)',
        left: [...payoutWidgets, this.#emf('PayoutNeedsReview'), this.#emf('PayoutMissed')],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Provider call latency (ms)',
        left: ['p50', 'p90', 'p99'].map(
          (statistic) =>
            new MathExpression({
              expression: `SEARCH('{${METRICS_NAMESPACE},outcome,service} MetricName="ProviderCallLatency"', '${statistic}', 300)`,
              label: statistic,
              period: PERIOD,
            }),
        ),
        width: 12,
      }),
      new GraphWidget({
        title: 'Payouts created and amounts (kobo)',
        left: [search('PayoutCreated', 'created')],
        right: [search('PayoutAmountKobo', 'amount (kobo)')],
        width: 12,
      }),
    );
    const fns = [...props.functions.values()].map((fn) => fn.function);
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Handler errors',
        left: fns.map((fn) => fn.metricErrors({ period: PERIOD })),
        width: 8,
      }),
      new GraphWidget({
        title: 'Handler duration p99 (ms)',
        left: fns.map((fn) => fn.metricDuration({ period: PERIOD, statistic: 'p99' })),
        width: 8,
      }),
      new SingleValueWidget({
        title: 'Dead-letter queue depth',
        metrics: [...props.deadLetterQueues.values()].map((queue) =>
          queue.metricApproximateNumberOfMessagesVisible(),
        ),
        width: 8,
      }),
    );
    if (props.api) {
      const api = props.api;
      dashboard.addWidgets(
        new GraphWidget({
          title: 'Ops API requests and errors',
          left: [
            api.metricCount({ period: PERIOD }),
            api.metricClientError({ period: PERIOD }),
            api.metricServerError({ period: PERIOD }),
          ],
          right: [api.metricLatency({ period: PERIOD, statistic: 'p99' })],
          width: 24,
        }),
      );
    }
    return dashboard;
  }
}
