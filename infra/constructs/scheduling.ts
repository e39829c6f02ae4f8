import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { CfnFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface ScheduledJob {
  readonly name: string;
  readonly every: Duration;
  readonly handler: IFunction;
  readonly deadLetterQueue: IQueue;
  readonly description: string;
}

/**
 * EventBridge Scheduler schedules for the periodic jobs (sweeper, reconciliation, settlement poll, schedule
 * sync). A missed tick is not retried for long: the next tick does the same work, and the handlers are
 * safe to overlap (claims are conditional writes).
 */
export class Scheduling extends Construct {
  readonly schedules: Schedule[] = [];

  add(job: ScheduledJob): Schedule {
    const schedule = new Schedule(this, job.name, {
      description: job.description,
      schedule: ScheduleExpression.rate(job.every),
      target: new LambdaInvoke(job.handler, {
        deadLetterQueue: job.deadLetterQueue,
        retryAttempts: 2,
        maxEventAge: Duration.seconds(Math.max(60, job.every.toSeconds())),
      }),
    });
    this.schedules.push(schedule);
    const cfnFunction = job.handler.node.defaultChild;
    if (cfnFunction instanceof CfnFunction) {
      // The Scheduler target grants lambda:InvokeFunction on the function and on `<arn>:*` (its versions).
      const logicalId = Stack.of(this).getLogicalId(cfnFunction);
      Validations.of(Stack.of(this)).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>:*]`,
        reason: `The scheduler role may invoke ${job.name} and its versions only; "<arn>:*" names those versions, not other functions.`,
      });
    }
    return schedule;
  }
}
