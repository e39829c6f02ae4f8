import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemCommandInput,
  type BatchWriteItemCommandOutput,
  type ConditionCheck,
  type Delete,
  type DeleteRequest,
  type DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  type GetItemCommandOutput,
  type Put,
  PutItemCommand,
  type PutItemCommandInput,
  type PutItemCommandOutput,
  type PutRequest,
  QueryCommand as QueryItemsCommand,
  type QueryCommandOutput as QueryItemsCommandOutput,
  type QueryCommandInput as QueryItemsInput,
  TransactWriteItemsCommand,
  type TransactWriteItemsCommandInput,
  type TransactWriteItemsCommandOutput,
  type Update,
  UpdateItemCommand,
  type UpdateItemCommandInput,
  type UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { marshall, type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * DynamoDB's document model for the project's stores: plain values in, plain values out, on the project's
 * `DynamoDBClient` (lib/shared/dynamodb-client.ts) and its commands.
 *
 * Why not `@aws-sdk/lib-dynamodb`'s `DynamoDBDocumentClient`, which does the same: each of its commands adds two
 * middlewares (marshal, unmarshal) to a stack of its own, so every send resolves one more middleware stack and
 * walks its input and output through a generic key-path walker: on a cold start, up to 3 ms of a function's first
 * event in alternating runs, and about 5 KB of its bundle (issue 18, docs/cold-start.md); warm, about 1 ms of
 * the engine's overhead per payout. Here each command marshals the fields it knows before the client's command
 * is built and unmarshals its answer after: the same `marshall` and `unmarshall` of `@aws-sdk/util-dynamodb`,
 * so the items on the table are the same.
 *
 * One behaviour for every store: an attribute whose value is `undefined` is left out of the item (util-dynamodb's
 * `removeUndefinedValues`). Legacy parameters (`Expected`, `AttributeUpdates`, `KeyConditions`, `QueryFilter`)
 * are not in the inputs' types: their values would go out unmarshalled.
 *
 * @example
 * const doc = DocumentClient.from(client);
 * const { Item } = await doc.send(new GetCommand({ TableName, Key: { pk: 'P#1', sk: 'P' }, ConsistentRead: true }));
 */
export class DocumentClient {
  readonly #client: DynamoDBClient;

  private constructor(client: DynamoDBClient) {
    this.#client = client;
  }

  static from(client: DynamoDBClient): DocumentClient {
    return new DocumentClient(client);
  }

  send<Output>(command: DocumentCommand<Output>, options?: SendOptions): Promise<Output> {
    return command.sendWith(this.#client, options);
  }
}

/** What a send may carry besides the command: a signal that abandons the call. */
export interface SendOptions {
  readonly abortSignal?: AbortSignal;
}

/** A command of the document model: marshals its input, sends the client's command, unmarshals its answer. */
export interface DocumentCommand<Output> {
  sendWith(client: DynamoDBClient, options: SendOptions | undefined): Promise<Output>;
}

/** A plain item, key or set of expression values, as the stores write and read them. */
export type Document = Record<string, NativeAttributeValue>;

type Values = { ExpressionAttributeValues?: Document };
type WithValues<T> = Omit<T, 'ExpressionAttributeValues'> & Values;

const MARSHALL_OPTIONS = { removeUndefinedValues: true } as const;

function toItem(document: Document): Record<string, AttributeValue> {
  return marshall(document, MARSHALL_OPTIONS);
}

function toValues(values: Document | undefined): Record<string, AttributeValue> | undefined {
  return values && marshall(values, MARSHALL_OPTIONS);
}

function fromItem(item: Record<string, AttributeValue> | undefined): Document | undefined {
  return item && unmarshall(item);
}

/** `input` with its expression values marshalled; the caller marshals its key or item. */
function withValuesMarshalled<T extends Values>({ ExpressionAttributeValues, ...rest }: T) {
  return { ...rest, ExpressionAttributeValues: toValues(ExpressionAttributeValues) };
}

/** `input` with its key and expression values marshalled. */
function withKeyMarshalled<T extends Values & { Key: Document }>(input: T) {
  return { ...withValuesMarshalled(input), Key: toItem(input.Key) };
}

export type GetCommandInput = Omit<GetItemCommandInput, 'Key'> & { Key: Document };
export type GetCommandOutput = Omit<GetItemCommandOutput, 'Item'> & { Item?: Document };

export class GetCommand implements DocumentCommand<GetCommandOutput> {
  constructor(readonly input: GetCommandInput) {}

  async sendWith(client: DynamoDBClient, options: SendOptions | undefined): Promise<GetCommandOutput> {
    const output = await client.send(
      new GetItemCommand({ ...this.input, Key: toItem(this.input.Key) }),
      options,
    );
    return { ...output, Item: fromItem(output.Item) };
  }
}

export type PutCommandInput = WithValues<Omit<PutItemCommandInput, 'Item' | 'Expected'>> & { Item: Document };
export type PutCommandOutput = Omit<PutItemCommandOutput, 'Attributes'> & { Attributes?: Document };

export class PutCommand implements DocumentCommand<PutCommandOutput> {
  constructor(readonly input: PutCommandInput) {}

  async sendWith(client: DynamoDBClient, options: SendOptions | undefined): Promise<PutCommandOutput> {
    const output = await client.send(
      new PutItemCommand({ ...withValuesMarshalled(this.input), Item: toItem(this.input.Item) }),
      options,
    );
    return { ...output, Attributes: fromItem(output.Attributes) };
  }
}

export type UpdateCommandInput = WithValues<
  Omit<UpdateItemCommandInput, 'Key' | 'Expected' | 'AttributeUpdates'>
> & { Key: Document };
export type UpdateCommandOutput = Omit<UpdateItemCommandOutput, 'Attributes'> & { Attributes?: Document };

export class UpdateCommand implements DocumentCommand<UpdateCommandOutput> {
  constructor(readonly input: UpdateCommandInput) {}

  async sendWith(client: DynamoDBClient, options: SendOptions | undefined): Promise<UpdateCommandOutput> {
    const output = await client.send(new UpdateItemCommand(withKeyMarshalled(this.input)), options);
    return { ...output, Attributes: fromItem(output.Attributes) };
  }
}

export type QueryCommandInput = WithValues<
  Omit<QueryItemsInput, 'ExclusiveStartKey' | 'KeyConditions' | 'QueryFilter'>
> & { ExclusiveStartKey?: Document };
export type QueryCommandOutput = Omit<QueryItemsCommandOutput, 'Items' | 'LastEvaluatedKey'> & {
  Items?: Document[];
  LastEvaluatedKey?: Document;
};

export class QueryCommand implements DocumentCommand<QueryCommandOutput> {
  constructor(readonly input: QueryCommandInput) {}

  async sendWith(client: DynamoDBClient, options: SendOptions | undefined): Promise<QueryCommandOutput> {
    const { ExclusiveStartKey } = this.input;
    const output = await client.send(
      new QueryItemsCommand({
        ...withValuesMarshalled(this.input),
        ExclusiveStartKey: ExclusiveStartKey && toItem(ExclusiveStartKey),
      }),
      options,
    );
    return {
      ...output,
      Items: output.Items?.map((item) => unmarshall(item)),
      LastEvaluatedKey: fromItem(output.LastEvaluatedKey),
    };
  }
}

/** One action of a transaction, with plain keys, items and values. */
export interface TransactWriteItem {
  ConditionCheck?: WithValues<Omit<ConditionCheck, 'Key'>> & { Key: Document };
  Put?: WithValues<Omit<Put, 'Item'>> & { Item: Document };
  Delete?: WithValues<Omit<Delete, 'Key'>> & { Key: Document };
  Update?: WithValues<Omit<Update, 'Key'>> & { Key: Document };
}

export type TransactWriteCommandInput = Omit<TransactWriteItemsCommandInput, 'TransactItems'> & {
  TransactItems: TransactWriteItem[];
};
export type TransactWriteCommandOutput = Omit<TransactWriteItemsCommandOutput, 'ItemCollectionMetrics'>;

export class TransactWriteCommand implements DocumentCommand<TransactWriteCommandOutput> {
  constructor(readonly input: TransactWriteCommandInput) {}

  async sendWith(
    client: DynamoDBClient,
    options: SendOptions | undefined,
  ): Promise<TransactWriteCommandOutput> {
    const { TransactItems, ...rest } = this.input;
    const { ItemCollectionMetrics: _unread, ...output } = await client.send(
      new TransactWriteItemsCommand({ ...rest, TransactItems: TransactItems.map(toTransactItem) }),
      options,
    );
    return output;
  }
}

function toTransactItem(
  action: TransactWriteItem,
): NonNullable<TransactWriteItemsCommandInput['TransactItems']>[number] {
  if (action.Put) return { Put: { ...withValuesMarshalled(action.Put), Item: toItem(action.Put.Item) } };
  if (action.ConditionCheck) return { ConditionCheck: withKeyMarshalled(action.ConditionCheck) };
  if (action.Delete) return { Delete: withKeyMarshalled(action.Delete) };
  if (action.Update) return { Update: withKeyMarshalled(action.Update) };
  throw new TypeError('a transaction action names none of ConditionCheck, Put, Delete, Update');
}

/** One request of a batch write, with a plain item or key. */
export interface WriteRequest {
  PutRequest?: { Item: Document };
  DeleteRequest?: { Key: Document };
}

export type BatchWriteCommandInput = Omit<BatchWriteItemCommandInput, 'RequestItems'> & {
  RequestItems: Record<string, WriteRequest[]>;
};
export type BatchWriteCommandOutput = Omit<
  BatchWriteItemCommandOutput,
  'UnprocessedItems' | 'ItemCollectionMetrics'
> & { UnprocessedItems?: Record<string, WriteRequest[]> };

export class BatchWriteCommand implements DocumentCommand<BatchWriteCommandOutput> {
  constructor(readonly input: BatchWriteCommandInput) {}

  async sendWith(client: DynamoDBClient, options: SendOptions | undefined): Promise<BatchWriteCommandOutput> {
    const { RequestItems, ...rest } = this.input;
    const {
      UnprocessedItems,
      ItemCollectionMetrics: _unread,
      ...output
    } = await client.send(
      new BatchWriteItemCommand({ ...rest, RequestItems: mapRequests(RequestItems, toWriteRequest) }),
      options,
    );
    return {
      ...output,
      UnprocessedItems: UnprocessedItems && mapRequests(UnprocessedItems, fromWriteRequest),
    };
  }
}

interface MarshalledWriteRequest {
  PutRequest?: PutRequest;
  DeleteRequest?: DeleteRequest;
}

function mapRequests<From, To>(
  requests: Record<string, From[] | undefined>,
  convert: (request: From) => To,
): Record<string, To[]> {
  return Object.fromEntries(
    Object.entries(requests).map(([table, list]) => [table, (list ?? []).map(convert)]),
  );
}

function toWriteRequest(request: WriteRequest): MarshalledWriteRequest {
  if (request.PutRequest) return { PutRequest: { Item: toItem(request.PutRequest.Item) } };
  if (request.DeleteRequest) return { DeleteRequest: { Key: toItem(request.DeleteRequest.Key) } };
  throw new TypeError('a batch write request names neither PutRequest nor DeleteRequest');
}

function fromWriteRequest(request: MarshalledWriteRequest): WriteRequest {
  if (request.PutRequest?.Item) return { PutRequest: { Item: unmarshall(request.PutRequest.Item) } };
  if (request.DeleteRequest?.Key) return { DeleteRequest: { Key: unmarshall(request.DeleteRequest.Key) } };
  throw new TypeError('DynamoDB returned an unprocessed write that names neither an item nor a key');
}
