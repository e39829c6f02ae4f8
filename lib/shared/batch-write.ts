import { forEachAtOnce } from './at-once.js';
import {
  BatchWriteCommand,
  type Document,
  type DocumentClient,
  type SendOptions,
  type WriteRequest,
} from './document-client.js';

/** DynamoDB's limit on one BatchWriteItem. */
export const BATCH_WRITE_MAX_ITEMS = 25;
/** Calls of one batch: the first, then what DynamoDB handed back unprocessed, offered again. */
export const BATCH_WRITE_ATTEMPTS = 5;

/**
 * Puts at most BATCH_WRITE_MAX_ITEMS items in one BatchWriteItem, offering what DynamoDB hands back unprocessed
 * again, BATCH_WRITE_ATTEMPTS calls in all.
 *
 * @throws Error naming how many of `what` (`rows of run 01J…`) were not written
 * @example await putBatch(doc, table, lines, { what: `statement lines of ${date}` }, { abortSignal });
 */
export async function putBatch(
  doc: DocumentClient,
  tableName: string,
  items: readonly Document[],
  options: { readonly what: string },
  sendOptions?: SendOptions,
): Promise<void> {
  let requests: WriteRequest[] = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; requests.length > 0 && attempt < BATCH_WRITE_ATTEMPTS; attempt++) {
    const result = await doc.send(
      new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
      sendOptions,
    );
    requests = result.UnprocessedItems?.[tableName] ?? [];
  }
  if (requests.length > 0) throw new Error(`${requests.length} ${options.what} were not written`);
}

/**
 * Puts every item, BATCH_WRITE_MAX_ITEMS per BatchWriteItem (`putBatch`), `inFlight` calls at once.
 *
 * @throws Error naming how many of `what` one batch left unwritten
 * @example await putInBatches(doc, table, rows, { inFlight: 8, what: `rows of run ${runId}` });
 */
export async function putInBatches(
  doc: DocumentClient,
  tableName: string,
  items: readonly Document[],
  options: { readonly inFlight: number; readonly what: string },
): Promise<void> {
  const batches: Document[][] = [];
  for (let start = 0; start < items.length; start += BATCH_WRITE_MAX_ITEMS) {
    batches.push(items.slice(start, start + BATCH_WRITE_MAX_ITEMS));
  }
  await forEachAtOnce(batches, options.inFlight, (batch) =>
    putBatch(doc, tableName, batch, { what: options.what }),
  );
}
