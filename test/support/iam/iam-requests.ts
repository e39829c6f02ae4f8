import type { AwsCall } from '../../../lib/shared/aws-call-observer.js';
import { TableKeys } from '../../../lib/table/index.js';
import { TEST_ACCOUNT, TEST_REGION } from './template-resolver.js';

/** One authorisation AWS makes for a call: an action on a resource, with the request's condition keys. */
export interface IamRequest {
  readonly action: string;
  readonly resource: string;
  readonly context: Record<string, string | string[]>;
}

/** The template's names for what the test ran locally under other names (a table per test file). */
export interface ResourceNames {
  /** Local table name -> the template's table name. */
  readonly table: (localName: string) => string;
  /** Local bus name -> the template's bus name. */
  readonly bus: (localName: string) => string;
  /** Local queue name (the last segment of its URL, `payout-submissions.fifo`) -> the template's queue name. */
  readonly queue: (localName: string) => string;
  /** Secret ARN -> the ARN of its customer-managed KMS key, for secrets that have one. */
  readonly secretKeys: ReadonlyMap<string, string>;
  /** Local user pool id (cognito-local's) -> the template's operators pool id. */
  readonly userPool?: (localId: string) => string;
}

const arn = (service: string, resource: string) =>
  `arn:aws:${service}:${TEST_REGION}:${TEST_ACCOUNT}:${resource}`;

/** DocumentClient command names are the DynamoDB ones without "Item(s)"; IAM knows the DynamoDB ones. */
const DOCUMENT_TO_DYNAMODB: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
  Query: 'Query',
  Scan: 'Scan',
};

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The table's partition key attribute (lib/table/table-design.ts). */
const PARTITION_KEY = TableKeys.partitionKey;

/**
 * The partition key value of one item (its `Item` for a put, its `Key` otherwise), as the DocumentClient gives
 * it or marshalled (`{ S }`). A write whose key cannot be read is an error, not an empty `dynamodb:LeadingKeys`:
 * `ForAllValues` holds for an empty set, so an unread key would let any write through the proof.
 */
function partitionKeyOf(call: AwsCall, item: unknown): string {
  const value = record(item)[PARTITION_KEY];
  const key = typeof value === 'string' ? value : record(value).S;
  if (typeof key !== 'string') {
    throw new Error(
      `the IAM proof cannot read the partition key written by ${call.command}: ${JSON.stringify(item)}`,
    );
  }
  return key;
}

/** The item a single-item write or check names: a put's `Item`, the `Key` of the others. */
const writtenItem = (action: string, body: Record<string, unknown>) =>
  action === 'dynamodb:PutItem' ? body.Item : body.Key;

/**
 * `dynamodb:LeadingKeys` as DynamoDB evaluates it on a write: the partition keys of the items the request
 * writes or checks (each of a transaction on its own action, every item of a BatchWriteItem on the table's).
 */
const leadingKeys = (keys: readonly string[]) => ({ 'dynamodb:LeadingKeys': [...new Set(keys)] });
const ITEM_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

/**
 * What AWS authorises for one SDK call, per the service authorisation reference: a transaction is one
 * Put/Update/Delete/ConditionCheckItem per item on that item's table (there is no TransactWriteItems action);
 * every item write and check carries `dynamodb:LeadingKeys`, the partition keys it writes (a BatchWriteItem all
 * of its items' on each table it writes); a Query or Scan on an index is authorised on the index ARN;
 * GetSecretValue on the secret, plus the kms:Decrypt Secrets Manager makes with the caller's identity when
 * the secret has a customer-managed key; PutEvents once per entry, with that entry's `events:source`; an SQS
 * `SendMessageBatch` as `sqs:SendMessage` on the queue.
 */
export function iamRequestsFor(call: AwsCall, names: ResourceNames): IamRequest[] {
  const operation = call.command.replace(/Command$/, '');
  const input = record(call.input);
  const table = (name: unknown) => arn('dynamodb', `table/${names.table(String(name))}`);
  switch (call.client) {
    case 'DynamoDBClient':
    case 'DynamoDBDocumentClient': {
      const action = DOCUMENT_TO_DYNAMODB[operation] ?? operation;
      switch (action) {
        case 'TransactWriteItems':
          return list(input.TransactItems).flatMap((item) =>
            Object.entries(record(item)).map(([kind, body]) => {
              const itemAction = `dynamodb:${kind === 'ConditionCheck' ? 'ConditionCheckItem' : `${kind}Item`}`;
              return {
                action: itemAction,
                resource: table(record(body).TableName),
                context: leadingKeys([partitionKeyOf(call, writtenItem(itemAction, record(body)))]),
              };
            }),
          );
        case 'TransactGetItems':
          return list(input.TransactItems).map((item) => ({
            action: 'dynamodb:GetItem',
            resource: table(record(record(item).Get).TableName),
            context: {},
          }));
        case 'BatchWriteItem':
          return Object.entries(record(input.RequestItems)).map(([name, requests]) => ({
            action: 'dynamodb:BatchWriteItem',
            resource: table(name),
            context: leadingKeys(
              list(requests).map((request) => {
                const { PutRequest, DeleteRequest } = record(request);
                return partitionKeyOf(call, PutRequest ? record(PutRequest).Item : record(DeleteRequest).Key);
              }),
            ),
          }));
        case 'BatchGetItem':
          return Object.keys(record(input.RequestItems)).map((name) => ({
            action: `dynamodb:${action}`,
            resource: table(name),
            context: {},
          }));
        case 'Query':
        case 'Scan': {
          const base = table(input.TableName);
          const resource = input.IndexName ? `${base}/index/${String(input.IndexName)}` : base;
          return [{ action: `dynamodb:${action}`, resource, context: {} }];
        }
        default:
          return [
            {
              action: `dynamodb:${action}`,
              resource: table(input.TableName),
              context: ITEM_WRITES.has(action)
                ? leadingKeys([partitionKeyOf(call, writtenItem(`dynamodb:${action}`, input))])
                : {},
            },
          ];
      }
    }
    case 'SecretsManagerClient': {
      const secret = String(input.SecretId);
      const requests: IamRequest[] = [
        { action: `secretsmanager:${operation}`, resource: secret, context: {} },
      ];
      const key = names.secretKeys.get(secret);
      if (operation === 'GetSecretValue' && key) {
        requests.push({
          action: 'kms:Decrypt',
          resource: key,
          // Secrets Manager also passes the encryption context { SecretARN }; the evaluator cannot read
          // kms:EncryptionContext:<key> keys, so the grants do not depend on it (infra/constructs/payout-function.ts).
          context: { 'kms:ViaService': `secretsmanager.${TEST_REGION}.amazonaws.com` },
        });
      }
      return requests;
    }
    case 'EventBridgeClient': {
      if (operation !== 'PutEvents') return [{ action: `events:${operation}`, resource: '*', context: {} }];
      return list(input.Entries).map((entry) => {
        const { EventBusName, Source, DetailType } = record(entry);
        const bus = String(EventBusName ?? 'default');
        const busArn = bus.startsWith('arn:') ? bus : arn('events', `event-bus/${names.bus(bus)}`);
        return {
          action: 'events:PutEvents',
          resource: busArn,
          context: { 'events:source': [String(Source)], 'events:detail-type': [String(DetailType)] },
        };
      });
    }
    case 'SQSClient': {
      // The batch calls are authorised as their single-message actions (there is no sqs:SendMessageBatch).
      const action = operation.replace(/Batch$/, '');
      const queueName = String(input.QueueUrl).split('/').pop() ?? '';
      return [
        {
          action: `sqs:${action}`,
          resource: arn('sqs', names.queue(queueName)),
          // In AWS every SQS request goes over HTTPS; the queues deny anything else.
          context: { 'aws:SecureTransport': 'true' },
        },
      ];
    }
    case 'CognitoIdentityProviderClient': {
      // Every user pool admin call is authorised on the pool's ARN (the operators' pool of the template).
      const local = String(input.UserPoolId);
      const pool = names.userPool ? names.userPool(local) : local;
      return [
        { action: `cognito-idp:${operation}`, resource: arn('cognito-idp', `userpool/${pool}`), context: {} },
      ];
    }
    default:
      throw new Error(`the IAM proof does not know the client ${call.client} (${call.command})`);
  }
}
