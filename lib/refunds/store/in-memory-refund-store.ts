import { InMemoryControls } from '../../payouts/index.js';
import { ConcurrentModificationError } from '../../shared/errors.js';
import { newestFirst, pageOf } from '../../shared/in-memory-pages.js';
import type { CursorPage } from '../../shared/paging.js';
import { RefundExceedsAmountPaidError } from '../errors.js';
import { type Refund, type RefundAuditEvent, type RefundStatus, refundWorkDueAt } from '../model.js';
import type { CreateRefundOutcome, RefundChange, RefundStore } from '../refund-store.js';

/**
 * Refunds in memory, with the table store's rules (`DynamoDbRefundStore`): an idempotency key is held by one
 * refund; a change is written only over the version it read, with an audit event of a new sequence; a claim that
 * requires it is refused while `controls` say payouts are paused, a cap reservation past the day's limit is refused,
 * and a transaction's refunded total may not pass what was paid (the first reservation of a transaction always
 * fits, as in the table). Every condition is checked before anything is written, so a refused change writes
 * nothing. For unit tests of the refund service and sender; the table's own suites test the store
 * (test/refunds/). It keeps no accepted-refund items: the daily statement reads those from the table alone.
 */
export class InMemoryRefundStore implements RefundStore {
  readonly #refunds = new Map<string, Refund>();
  readonly #keys = new Map<string, string>();
  readonly #audit = new Map<string, RefundAuditEvent[]>();
  readonly #totals = new Map<string, number>();

  constructor(readonly controls: InMemoryControls = new InMemoryControls()) {}

  async create(refund: Refund, audit?: RefundAuditEvent): Promise<CreateRefundOutcome> {
    const owner = this.#keys.get(refund.idempotencyKey);
    if (owner !== undefined) {
      const existing = this.#refunds.get(owner);
      if (!existing) throw new ConcurrentModificationError('refund', refund.id);
      return { created: false, existing: structuredClone(existing) };
    }
    if (this.#refunds.has(refund.id)) throw new ConcurrentModificationError('refund', refund.id);
    if (refund.countsInTotal) this.#checkTotal(refund, refund.amountKobo);
    this.#keys.set(refund.idempotencyKey, refund.id);
    this.#refunds.set(refund.id, structuredClone(refund));
    this.#audit.set(refund.id, audit ? [structuredClone(audit)] : []);
    if (refund.countsInTotal) this.#addTotal(refund.transactionId, refund.amountKobo);
    return { created: true, refund: structuredClone(refund) };
  }

  async get(id: string): Promise<Refund | undefined> {
    const refund = this.#refunds.get(id);
    return refund && structuredClone(refund);
  }

  async findByIdempotencyKey(key: string): Promise<Refund | undefined> {
    const owner = this.#keys.get(key);
    return owner === undefined ? undefined : this.get(owner);
  }

  async list(query: { status?: RefundStatus; limit: number; cursor?: string }): Promise<CursorPage<Refund>> {
    const matching = [...this.#refunds.values()].filter(
      (refund) => query.status === undefined || refund.status === query.status,
    );
    const page = pageOf(
      newestFirst(
        matching,
        (refund) => refund.createdAt,
        (refund) => refund.id,
      ),
      query,
    );
    return { ...page, items: page.items.map((refund) => structuredClone(refund)) };
  }

  async getAudit(id: string): Promise<RefundAuditEvent[]> {
    const events = this.#audit.get(id) ?? [];
    return structuredClone([...events].sort((a, b) => a.sequence - b.sequence));
  }

  async refundedTotal(transactionId: string): Promise<number> {
    return this.#totals.get(transactionId) ?? 0;
  }

  async update(before: Refund, after: Refund, change: RefundChange = {}): Promise<Refund> {
    // The order the table store reads a cancelled transaction's reasons in: the version and the audit event, the
    // pause, the cap, the refunded total.
    const current = this.#refunds.get(before.id);
    const events = this.#audit.get(before.id) ?? [];
    const { audit, cap, totalDeltaKobo } = change;
    const auditTaken = audit !== undefined && events.some((event) => event.sequence === audit.sequence);
    if (!current || current.version !== before.version || auditTaken) {
      throw new ConcurrentModificationError('refund', before.id);
    }
    if (change.requireNotPaused) this.controls.checkNotPaused();
    if (cap) this.controls.checkCap(cap);
    if (totalDeltaKobo && totalDeltaKobo > 0) this.#checkTotal(after, totalDeltaKobo);
    this.#refunds.set(after.id, structuredClone(after));
    if (audit) this.#audit.set(before.id, [...events, structuredClone(audit)]);
    if (cap) this.controls.applyCap(cap);
    if (totalDeltaKobo) this.#addTotal(after.transactionId, totalDeltaKobo);
    return after;
  }

  async due(dueBy: string, limit: number): Promise<Refund[]> {
    const queued = [...this.#refunds.values()].flatMap((refund) => {
      const dueAt = refundWorkDueAt(refund);
      return dueAt === undefined ? [] : [{ key: `${dueAt}#${refund.id}`, refund }];
    });
    return queued
      .filter(({ key }) => key <= `${dueBy}#\uffff`)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, limit)
      .map(({ refund }) => structuredClone(refund));
  }

  /** A reservation may not take the total above the amount paid; the first one of a transaction always fits. */
  #checkTotal(refund: Refund, deltaKobo: number): void {
    const total = this.#totals.get(refund.transactionId);
    const paid = refund.amountPaidKobo ?? 0;
    if (total === undefined || total <= paid - deltaKobo) return;
    throw new RefundExceedsAmountPaidError(refund.amountKobo, paid, total);
  }

  #addTotal(transactionId: string, deltaKobo: number): void {
    this.#totals.set(transactionId, (this.#totals.get(transactionId) ?? 0) + deltaKobo);
  }
}
