import { Duration, Stack } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { AnyPrincipal, ArnPrincipal, Effect, type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

import { DOMAIN_EVENT_SOURCE } from '../../lib/events/domain-events.js';
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
    return this.#invoking(rule, route);
  }

  /**
   * Routes the engine's own domain events of `detailTypes` (source `merchant.payouts.engine`) to a handler, as
   * `route` does for inbound requests.
   */
  routeDomainEvents(route: {
    readonly name: string;
    readonly detailTypes: readonly string[];
    readonly handler: IFunction;
    readonly deadLetterQueue: IQueue;
  }): Rule {
    const rule = new Rule(this, `${route.name.replace(/[^A-Za-z0-9]/g, '')}Rule`, {
      eventBus: this.bus,
      description: `${route.detailTypes.join(', ')} -> ${route.handler.node.id}`,
      eventPattern: { source: [DOMAIN_EVENT_SOURCE], detailType: [...route.detailTypes] },
    });
    return this.#invoking(rule, route);
  }

  /**
   * The bus's resource policy: only the stage's producer roles may put `merchant.payouts` events (payout
   * instructions), and only the domain-events publisher may put `merchant.payouts.engine` events (outcomes
   * others act on). A Deny in a resource policy binds every principal, those of this account included, whatever
   * their own IAM policies allow. EventBridge evaluates `events:source` for each entry of a PutEvents call and
   * refuses an entry it denies with NotAuthorizedForSourceException. With no producer role configured, nobody
   * can put inbound events.
   */
  restrictSources(props: { producerRoleArns: readonly string[]; publisher?: IRole }): void {
    const { bus } = this;
    const onlyFrom = (sid: string, source: string, principalArns: readonly string[]) =>
      new PolicyStatement({
        sid,
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['events:PutEvents'],
        resources: [bus.eventBusArn],
        conditions: {
          // `events:source` is multivalued (ArrayOfString): deny when ANY entry carries the source.
          'ForAnyValue:StringEquals': { 'events:source': [source] },
          ...(principalArns.length > 0 && { ArnNotEquals: { 'aws:PrincipalArn': [...principalArns] } }),
        },
      });
    bus.addToResourcePolicy(
      onlyFrom('InboundOnlyFromProducers', INBOUND_EVENT_SOURCE, props.producerRoleArns),
    );
    bus.addToResourcePolicy(
      onlyFrom(
        'EngineEventsOnlyFromPublisher',
        DOMAIN_EVENT_SOURCE,
        props.publisher ? [props.publisher.roleArn] : [],
      ),
    );
    if (props.producerRoleArns.length > 0) {
      // Lets a producer role of another account put requests too (same-account roles need no Allow here).
      bus.addToResourcePolicy(
        new PolicyStatement({
          sid: 'ProducersMayPutInbound',
          principals: props.producerRoleArns.map((arn) => new ArnPrincipal(arn)),
          actions: ['events:PutEvents'],
          resources: [bus.eventBusArn],
          conditions: {
            'ForAllValues:StringEquals': { 'events:source': [INBOUND_EVENT_SOURCE] },
            Null: { 'events:source': 'false' },
          },
        }),
      );
    }
  }

  /** The rule's one target: the handler, retried 8 times over at most 6 hours, then its dead-letter queue. */
  #invoking(rule: Rule, route: { readonly handler: IFunction; readonly deadLetterQueue: IQueue }): Rule {
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
