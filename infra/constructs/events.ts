import { Duration, Stack } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

import { INBOUND_EVENT_SOURCE } from '../../lib/events/schemas.js';

export interface EventsProps {
  readonly stage: string;
}

export interface EventRoute {
  readonly detailType: string;
  readonly handler: IFunction;
  readonly deadLetterQueue: IQueue;
}

/**
 * The service's event bus: inbound requests (`Payout Requested`, `Settlement Available`) and the domain
 * events it publishes (`Payout Succeeded`, ...) travel on it.
 */
export class Events extends Construct {
  readonly bus: EventBus;
  readonly rules: Rule[] = [];

  constructor(scope: Construct, id: string, props: EventsProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { eventBusName: `payouts-${props.stage}` });
    // Replaying a day of traffic after a bug fix is cheap insurance; handlers are idempotent by event.
    this.bus.archive('Archive', {
      description: 'All events of the payouts bus, for replay',
      eventPattern: { account: [Stack.of(this).account] },
      retention: Duration.days(30),
    });
  }

  /** Routes one detail type to a handler; what EventBridge cannot deliver after retries goes to the DLQ. */
  route(route: EventRoute): Rule {
    const id = route.detailType.replace(/[^A-Za-z0-9]/g, '');
    const rule = new Rule(this, `${id}Rule`, {
      eventBus: this.bus,
      description: `${route.detailType} -> ${route.handler.node.id}`,
      eventPattern: { source: [INBOUND_EVENT_SOURCE], detailType: [route.detailType] },
    });
    rule.addTarget(
      new LambdaFunction(route.handler, {
        deadLetterQueue: route.deadLetterQueue,
        retryAttempts: 8,
        maxEventAge: Duration.hours(6),
      }),
    );
    this.rules.push(rule);
    return rule;
  }
}
