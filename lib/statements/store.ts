import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BATCH_WRITE_MAX_ITEMS, putBatch } from '../shared/batch-write.js';
import { encodeCursor, readCursor } from '../shared/cursor.js';
import { type Document, DocumentClient, PutCommand, QueryCommand } from '../shared/document-client.js';
import { readItem } from '../shared/table-reads.js';
import * as z from '../shared/zod.js';
import { TableIndexes } from '../table/index.js';
import type { StatementLine, StatementLineKind, StatementReport } from './model.js';

/**
 * The keys of a statement's items (infra/config/key-prefixes.ts, `KeyPrefix.statement`): one partition per day
 * holding the report and its lines, each line an item of its own so a day of any size pages.
 */
export const statementKeys = {
  day: (date: string) => `STATEMENT#${date}`,
  report: 'REPORT',
  line: (kind: StatementLineKind, key: string) => `LINE#${kind}#${key}`,
  linesOf: (kind?: StatementLineKind) => (kind ? `LINE#${kind}#` : 'LINE#'),
  /** The gsi1 partition every report is listed under, newest day first. */
  allReports: 'STATEMENTS',
} as const;

const { byStatus } = TableIndexes;
const LineCursorSchema = z.strictObject({ sk: z.string().check(z.regex(/^LINE#[\x21-\x7e]{1,200}$/)) });
const ReportCursorSchema = z.strictObject({ date: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)) });
/** Lines a BatchWriteItem takes (DynamoDB's maximum). */
export const LINE_WRITE_BATCH = BATCH_WRITE_MAX_ITEMS;

/** Reports and lines in the single table. */
export class StatementStore {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  /**
   * One page of the keys of the day's lines already written, with when a run first saw each: a line the day has
   * not seen is a new finding of this run. Projected to the two attributes, so a page holds some 10,000 lines.
   */
  async seenLines(
    date: string,
    options: { startKey?: Document; signal?: AbortSignal } = {},
  ): Promise<{ seen: Map<string, string>; nextKey?: Document }> {
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ProjectionExpression: 'sk, firstSeenAt',
        ExpressionAttributeValues: { ':pk': statementKeys.day(date), ':prefix': statementKeys.linesOf() },
        ...(options.startKey && { ExclusiveStartKey: options.startKey }),
      }),
      options.signal ? { abortSignal: options.signal } : {},
    );
    const seen = new Map<string, string>();
    for (const item of page.Items ?? []) seen.set(String(item.sk), String(item.firstSeenAt));
    return { seen, ...(page.LastEvaluatedKey && { nextKey: page.LastEvaluatedKey }) };
  }

  /**
   * Writes at most LINE_WRITE_BATCH lines as of the run `runAt` in one BatchWriteItem (what DynamoDB hands back
   * unprocessed is offered again, BATCH_WRITE_ATTEMPTS in all, lib/shared/batch-write.ts), each keeping the `firstSeenAt` of `seen` (the
   * keys of seenLines) or taking `runAt`. A line an earlier run wrote that this run no longer sees keeps its old
   * `runAt`, so the day's listing (this run's) leaves it out. A put is repeated safely: `signal` abandons it.
   */
  async putLines(
    date: string,
    lines: readonly StatementLine[],
    runAt: string,
    seen: ReadonlyMap<string, string>,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    if (lines.length > LINE_WRITE_BATCH) throw new RangeError(`at most ${LINE_WRITE_BATCH} lines a batch`);
    await putBatch(
      this.#doc,
      this.tableName,
      lines.map((line) => {
        const sk = statementKeys.line(line.kind, line.key);
        return {
          pk: statementKeys.day(date),
          sk,
          entity: 'statement_line',
          line,
          runAt,
          firstSeenAt: seen.get(sk) ?? runAt,
        };
      }),
      { what: `statement lines of ${date}` },
      options.signal ? { abortSignal: options.signal } : {},
    );
  }

  async putReport(report: StatementReport, runAt: string): Promise<void> {
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: statementKeys.day(report.date),
          sk: statementKeys.report,
          entity: 'statement',
          [byStatus.partitionKey]: statementKeys.allReports,
          [byStatus.sortKey]: report.date,
          runAt,
          report,
        },
      }),
    );
  }

  async getReport(date: string): Promise<{ report: StatementReport; runAt: string } | undefined> {
    const item = await readItem(this.#doc, this.tableName, {
      pk: statementKeys.day(date),
      sk: statementKeys.report,
    });
    return item ? { report: item.report as StatementReport, runAt: String(item.runAt) } : undefined;
  }

  /** The reports, newest day first. */
  async listReports(
    limit: number,
    cursor?: string,
  ): Promise<{ items: StatementReport[]; nextCursor?: string }> {
    const after = readCursor(cursor, ReportCursorSchema);
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: byStatus.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': byStatus.partitionKey },
        ExpressionAttributeValues: { ':pk': statementKeys.allReports },
        ScanIndexForward: false,
        Limit: limit,
        ...(after && {
          ExclusiveStartKey: {
            pk: statementKeys.day(after.date),
            sk: statementKeys.report,
            [byStatus.partitionKey]: statementKeys.allReports,
            [byStatus.sortKey]: after.date,
          },
        }),
      }),
    );
    const items = (page.Items ?? []).map((item) => item.report as StatementReport);
    const last = items.at(-1);
    return { items, ...(page.LastEvaluatedKey && last && { nextCursor: encodeCursor({ date: last.date }) }) };
  }

  /** One page of a day's lines as of its latest run, of one kind or all, in key order. */
  async listLines(
    date: string,
    runAt: string,
    options: { kind?: StatementLineKind; limit: number; cursor?: string },
  ): Promise<{ items: StatementLine[]; nextCursor?: string }> {
    const after = readCursor(options.cursor, LineCursorSchema);
    const items: StatementLine[] = [];
    let startKey: Document | undefined = after && { pk: statementKeys.day(date), sk: after.sk };
    // A filtered page can come back short: read on until the page is full or the lines end.
    for (;;) {
      const page = await this.#doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression: 'runAt = :runAt',
          ExpressionAttributeValues: {
            ':pk': statementKeys.day(date),
            ':prefix': statementKeys.linesOf(options.kind),
            ':runAt': runAt,
          },
          Limit: options.limit - items.length,
          ...(startKey && { ExclusiveStartKey: startKey }),
        }),
      );
      for (const item of page.Items ?? []) items.push(item.line as StatementLine);
      startKey = page.LastEvaluatedKey;
      if (!startKey) return { items };
      if (items.length >= options.limit) {
        return { items, nextCursor: encodeCursor({ sk: String(startKey.sk) }) };
      }
    }
  }

  /** Every line of a day as of its latest run (the CSV and the report's own reads). */
  async allLines(date: string, runAt: string): Promise<StatementLine[]> {
    const lines: StatementLine[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.listLines(date, runAt, { limit: 500, ...(cursor && { cursor }) });
      lines.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return lines;
  }
}
