/**
 * Resolves a synthesized CloudFormation template's intrinsic functions (Ref, Fn::GetAtt, Fn::Join, Fn::Sub,
 * Fn::Select, Fn::Split, pseudo parameters) to concrete values for a fixed test account and region, the way
 * CloudFormation would at deploy time. Physical names follow AWS's ARN formats with the logical id standing in
 * for the generated part, so a policy naming `{ "Fn::GetAtt": ["Table", "Arn"] }` and a call on that table
 * meet on the same ARN.
 */
export const TEST_ACCOUNT = '123456789012';
export const TEST_REGION = 'eu-west-1';
const PARTITION = 'aws';

export type CfnResource = { Type: string; Properties?: Record<string, unknown> };
export type CfnTemplate = { Resources: Record<string, CfnResource> };

/** The table's stream label: any fixed timestamp, as AWS gives one per stream. */
const STREAM_LABEL = '2026-01-01T00:00:00.000';

export class TemplateResolver {
  constructor(readonly template: CfnTemplate) {}

  resource(logicalId: string): CfnResource {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new Error(`no resource ${logicalId} in the template`);
    return resource;
  }

  /** Deeply resolves every intrinsic function inside `value`. */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    if (entries.length === 1) {
      const [key, argument] = entries[0] as [string, unknown];
      switch (key) {
        case 'Ref':
          return this.ref(String(argument));
        case 'Fn::GetAtt': {
          const [id, attribute] = Array.isArray(argument) ? argument : String(argument).split('.');
          return this.getAtt(String(id), String(attribute));
        }
        case 'Fn::Join': {
          const [separator, parts] = argument as [string, unknown[]];
          return (this.resolve(parts) as unknown[]).map(String).join(separator);
        }
        case 'Fn::Sub':
          return this.sub(argument);
        case 'Fn::Select': {
          const [index, list] = argument as [number, unknown];
          return (this.resolve(list) as unknown[])[Number(index)];
        }
        case 'Fn::Split': {
          const [separator, text] = argument as [string, unknown];
          return String(this.resolve(text)).split(separator);
        }
      }
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item)]));
  }

  /** A string that must resolve to a string (an ARN, a name). */
  string(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string') throw new Error(`expected a string, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  ref(id: string): string {
    switch (id) {
      case 'AWS::AccountId':
        return TEST_ACCOUNT;
      case 'AWS::Region':
        return TEST_REGION;
      case 'AWS::Partition':
        return PARTITION;
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return 'Payouts-test';
    }
    const resource = this.resource(id);
    const properties = resource.Properties ?? {};
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table':
        return this.nameOf(properties.TableName, id);
      case 'AWS::Events::EventBus':
        return this.nameOf(properties.Name, id);
      case 'AWS::SecretsManager::Secret':
        return this.arn('secretsmanager', `secret:${id}-AbCdEf`);
      case 'AWS::SQS::Queue':
        return `https://sqs.${TEST_REGION}.amazonaws.com/${TEST_ACCOUNT}/${id}`;
      case 'AWS::Cognito::UserPool':
        return `${TEST_REGION}_${id}`;
      case 'AWS::IAM::Role':
      case 'AWS::Lambda::Function':
      case 'AWS::KMS::Key':
      case 'AWS::SNS::Topic':
        return resource.Type === 'AWS::SNS::Topic' ? this.arn('sns', id) : id;
      default:
        return id;
    }
  }

  getAtt(id: string, attribute: string): string {
    const resource = this.resource(id);
    switch (`${resource.Type}.${attribute}`) {
      case 'AWS::DynamoDB::Table.Arn':
        return this.arn('dynamodb', `table/${this.ref(id)}`);
      case 'AWS::DynamoDB::Table.StreamArn':
        return this.arn('dynamodb', `table/${this.ref(id)}/stream/${STREAM_LABEL}`);
      case 'AWS::Events::EventBus.Arn':
        return this.arn('events', `event-bus/${this.ref(id)}`);
      case 'AWS::SQS::Queue.Arn':
        return this.arn('sqs', id);
      case 'AWS::SQS::Queue.QueueName':
        return id;
      case 'AWS::IAM::Role.Arn':
        return `arn:${PARTITION}:iam::${TEST_ACCOUNT}:role/${id}`;
      case 'AWS::Lambda::Function.Arn':
        return this.arn('lambda', `function:${id}`);
      case 'AWS::KMS::Key.Arn':
        return this.arn('kms', `key/${id}`);
      case 'AWS::SecretsManager::Secret.Id':
        return this.ref(id);
      case 'AWS::Cognito::UserPool.Arn':
        return this.arn('cognito-idp', `userpool/${this.ref(id)}`);
      case 'AWS::ApiGatewayV2::Api.ApiId':
        return id;
      case 'AWS::Events::Rule.Arn': {
        const bus = resource.Properties?.EventBusName;
        return this.arn('events', `rule/${bus === undefined ? '' : `${this.string(bus)}/`}${id}`);
      }
      default:
        return `${id}.${attribute}`;
    }
  }

  #sub(text: string, variables: Record<string, unknown>): string {
    return text.replace(/\$\{([^}]+)\}/g, (_match, name: string) => {
      if (name in variables) return String(this.resolve(variables[name]));
      if (name.includes('.')) {
        const [id, attribute] = name.split('.');
        return this.getAtt(String(id), String(attribute));
      }
      return this.ref(name);
    });
  }

  private sub(argument: unknown): string {
    if (typeof argument === 'string') return this.#sub(argument, {});
    const [text, variables] = argument as [string, Record<string, unknown>];
    return this.#sub(text, variables);
  }

  private nameOf(name: unknown, id: string): string {
    return name === undefined ? id : this.string(name);
  }

  private arn(service: string, resource: string): string {
    return `arn:${PARTITION}:${service}:${TEST_REGION}:${TEST_ACCOUNT}:${resource}`;
  }
}
