import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DocumentClient, QueryCommand } from '../../shared/document-client.js';
import { readItemCollection } from '../../shared/item-collection.js';
import { readItem } from '../../shared/table-reads.js';
import { keys } from '../../table/index.js';
import type { AuditEvent, Payout } from '../model.js';
import { type CarriedAudit, carriedAuditOf, eventsOf, fromAuditItem, fromPayoutItem } from './item-codec.js';

/**
 * Where a payout's audit events are (docs/data-model.md, "Audit events"): the creation's on its idempotency key
 * item (payouts created since events ride on items), later ones on the payout item itself while it stays under
 * 1 KB, and in audit items (`AUDIT#<first sequence>`) those that a write moved off it, as every event of payouts
 * created before. Events only ever move from the payout item to an audit item, so a reader that reads the payout
 * item first and the audit items after misses none; one it sees in both places is the same event.
 */
interface PayoutWithCarriedAudit {
  readonly payout: Payout;
  readonly carried: CarriedAudit;
}

/** The payout item (consistent), with the events it carries; undefined when there is no such payout. */
async function readPayoutItem(
  doc: DocumentClient,
  tableName: string,
  id: string,
): Promise<PayoutWithCarriedAudit | undefined> {
  const item = await readItem(doc, tableName, keys.payout(id));
  return item ? { payout: fromPayoutItem(item), carried: carriedAuditOf(item) } : undefined;
}

/** The creation's events, which the payout's idempotency key item carries (none for payouts created before). */
async function keyItemEvents(
  doc: DocumentClient,
  tableName: string,
  { payout, carried }: PayoutWithCarriedAudit,
): Promise<AuditEvent[]> {
  if (carried.onKeyItem === 0) return [];
  const item = await readItem(doc, tableName, keys.idempotency(payout.origin, payout.idempotencyKey));
  return Array.isArray(item?.ev) ? eventsOf(item.ev, payout.id, 'idempotency key') : [];
}

/**
 * Whether a payout may have audit items: every payout created before events rode on items has some; one whose
 * creation's events are on its key item has them only once events moved off it (`moved`).
 */
function mayHaveAuditItems(carried: CarriedAudit): boolean {
  return carried.onKeyItem === 0 || carried.moved === true;
}

/** The events of several sources in sequence order, each once. */
function inSequence(...sources: readonly (readonly AuditEvent[])[]): AuditEvent[] {
  const bySequence = new Map<number, AuditEvent>();
  for (const event of sources.flat())
    if (!bySequence.has(event.sequence)) bySequence.set(event.sequence, event);
  return [...bySequence.values()].sort((a, b) => a.sequence - b.sequence);
}

/**
 * Where a page of an audit trail starts: after this event, read from the audit item holding it (0: the events
 * of the key item and every audit item; the events a payout item carries count as held by the audit item they
 * would move to, keyed by the first one's sequence).
 */
export interface AuditPosition {
  /** The sequence of the first event of the audit item holding `sequence` (that item's sort key). */
  readonly item: number;
  readonly sequence: number;
}

export interface AuditPage {
  readonly events: AuditEvent[];
  /** Where the next page starts; absent on the last page. */
  readonly next?: AuditPosition;
}

/**
 * A payout's audit trail: whole with the payout (`GET /payouts/{id}`), or page by page, oldest first
 * (`GET /payouts/{id}/audit`). A reader of its own, not a store method, so only the function serving those routes
 * carries it.
 *
 * @example const { events, next } = await new PayoutAuditTrail(client, table).page(id, { limit: 50 });
 */
export class PayoutAuditTrail {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  /** The payout and its whole trail, oldest first, in two round trips; undefined when there is no such payout. */
  async whole(payoutId: string): Promise<{ payout: Payout; audit: AuditEvent[] } | undefined> {
    const read = await readPayoutItem(this.#doc, this.tableName, payoutId);
    if (!read) return undefined;
    const [created, moved] = await Promise.all([
      keyItemEvents(this.#doc, this.tableName, read),
      mayHaveAuditItems(read.carried)
        ? readItemCollection(this.#doc, this.tableName, keys.payout(payoutId).pk, 'AUDIT#', fromAuditItem)
        : [],
    ]);
    const carried = eventsOf(read.carried.events, payoutId, 'payout');
    return { payout: read.payout, audit: inSequence(created, moved.flat(), carried) };
  }

  /**
   * Reads the payout item (undefined when there is no such payout), then the key item's events when the page
   * starts among them and, together, audit items from the one holding `after` on (when it may have any),
   * `limit` + 1 items a query with consistent reads, until it has more than `limit` events after it or the audit
   * items end; then the events the payout item carries. The payout item is read first: events only move from it
   * to audit items (above).
   */
  async page(
    payoutId: string,
    query: { limit: number; after?: AuditPosition },
  ): Promise<AuditPage | undefined> {
    const read = await readPayoutItem(this.#doc, this.tableName, payoutId);
    if (!read) return undefined;
    const after = query.after?.sequence ?? 0;
    const found: { event: AuditEvent; item: number }[] = [];
    const take = (events: readonly AuditEvent[], item: number) => {
      for (const event of events) if (event.sequence > after) found.push({ event, item });
    };
    // The key item is read while the audit items are.
    const created =
      after < read.carried.onKeyItem ? keyItemEvents(this.#doc, this.tableName, read) : undefined;
    let startKey: Record<string, unknown> | undefined;
    while (mayHaveAuditItems(read.carried)) {
      const page = await this.#doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': keys.payout(payoutId).pk,
            ':from': keys.audit(payoutId, query.after?.item ?? 0).sk,
            ':to': 'AUDIT#\uffff',
          },
          ConsistentRead: true,
          Limit: query.limit + 1,
          ...(startKey && { ExclusiveStartKey: startKey }),
        }),
      );
      for (const raw of page.Items ?? []) {
        const events = fromAuditItem(raw);
        take(events, events[0]?.sequence ?? 0);
      }
      startKey = page.LastEvaluatedKey;
      if (!startKey || found.length > query.limit) break;
    }
    if (created) take(await created, 0);
    if (!startKey) {
      const carried = eventsOf(read.carried.events, payoutId, 'payout');
      take(carried, carried[0]?.sequence ?? 0);
    }
    const ordered = inSequence(found.map(({ event }) => event));
    const itemOf = new Map<number, number>();
    for (const { event, item } of found) if (!itemOf.has(event.sequence)) itemOf.set(event.sequence, item);
    const shown = ordered.slice(0, query.limit);
    const last = shown.at(-1);
    const more = ordered.length > query.limit || startKey !== undefined;
    return {
      events: shown,
      ...(more && last && { next: { item: itemOf.get(last.sequence) ?? 0, sequence: last.sequence } }),
    };
  }
}
