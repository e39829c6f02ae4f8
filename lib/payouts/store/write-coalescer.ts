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

/**
 * Group commit: writes asked for in the same turn of the event loop are handed to `commit` together, in
 * batches of at most `maxBatch` writes of one group with distinct keys; each caller gets its own result. Batches are
 * cut when the event loop reaches its check phase, so a lone write waits for nothing but that.
 */
export class WriteCoalescer<W, R> {
  #pending: { write: W; settle: (result: Settled<R>) => void }[] = [];
  #scheduled = false;

  constructor(
    private readonly commit: (writes: readonly W[]) => Promise<readonly Settled<R>[]>,
    private readonly options: CoalescerOptions<W>,
  ) {}

  add(write: W): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#pending.push({
        write,
        settle: (result) => (result.ok ? resolve(result.value) : reject(result.error)),
      });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const pending = this.#pending;
    this.#pending = [];
    for (const batch of this.#batches(pending)) {
      this.commit(batch.map((entry) => entry.write)).then(
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
      );
    }
  }

  *#batches<E extends { write: W }>(entries: readonly E[]): Generator<E[]> {
    let rest = entries;
    while (rest.length > 0) {
      const batch: E[] = [];
      const keys = new Set<string>();
      const later: E[] = [];
      const group = this.options.groupOf((rest[0] as E).write);
      for (const entry of rest) {
        const key = this.options.keyOf(entry.write);
        if (
          batch.length < this.options.maxBatch &&
          !keys.has(key) &&
          this.options.groupOf(entry.write) === group
        ) {
          batch.push(entry);
          keys.add(key);
        } else later.push(entry);
      }
      yield batch;
      rest = later;
    }
  }
}
