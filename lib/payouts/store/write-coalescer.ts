/** The result of one write committed with others: its own value, or its own error. */
export type Settled<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

export interface CoalescerOptions<W> {
  /** Most writes committed together. */
  readonly maxBatch: number;
  /** Writes with the same key never share a batch (one item may appear once per transaction). */
  readonly keyOf: (write: W) => string;
  /** Only writes of the same group share a batch. */
  readonly groupOf: (write: W) => string;
}

interface Entry<W, R> {
  readonly write: W;
  readonly settle: (result: Settled<R>) => void;
}

/**
 * Group commit: each group has at most one commit in flight. A write that arrives while its group is idle is
 * committed once the event loop reaches its check phase, with whatever else arrived in the same turn; writes
 * that arrive while a commit is in flight wait for it and then go together, up to `maxBatch` with distinct
 * keys. So an idle store adds no wait, and a busy one makes fewer, larger transactions instead of many that
 * collide on a shared item (the daily-cap counter). Each caller gets its own write's result.
 */
export class WriteCoalescer<W, R> {
  readonly #waiting = new Map<string, Entry<W, R>[]>();
  readonly #busy = new Set<string>();
  #scheduled = false;

  constructor(
    private readonly commit: (writes: readonly W[]) => Promise<readonly Settled<R>[]>,
    private readonly options: CoalescerOptions<W>,
  ) {}

  add(write: W): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const group = this.options.groupOf(write);
      const queue = this.#waiting.get(group) ?? [];
      queue.push({ write, settle: (result) => (result.ok ? resolve(result.value) : reject(result.error)) });
      this.#waiting.set(group, queue);
      if (!this.#busy.has(group) && !this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#dispatchIdle());
      }
    });
  }

  #dispatchIdle(): void {
    this.#scheduled = false;
    for (const group of [...this.#waiting.keys()]) if (!this.#busy.has(group)) this.#dispatch(group);
  }

  #dispatch(group: string): void {
    const queue = this.#waiting.get(group) ?? [];
    const batch: Entry<W, R>[] = [];
    const rest: Entry<W, R>[] = [];
    const keys = new Set<string>();
    for (const entry of queue) {
      const key = this.options.keyOf(entry.write);
      if (batch.length < this.options.maxBatch && !keys.has(key)) {
        batch.push(entry);
        keys.add(key);
      } else rest.push(entry);
    }
    if (rest.length > 0) this.#waiting.set(group, rest);
    else this.#waiting.delete(group);
    if (batch.length === 0) return;
    this.#busy.add(group);
    this.commit(batch.map((entry) => entry.write))
      .then(
        (results) => {
          for (const [index, entry] of batch.entries()) {
            entry.settle(
              results[index] ?? { ok: false, error: new Error('no result for a coalesced write') },
            );
          }
        },
        (error: unknown) => {
          for (const entry of batch) entry.settle({ ok: false, error });
        },
      )
      .finally(() => {
        this.#busy.delete(group);
        if (this.#waiting.has(group)) this.#dispatch(group);
      });
  }
}
