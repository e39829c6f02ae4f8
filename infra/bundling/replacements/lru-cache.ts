/**
 * Takes the place of `mnemonist/lru-cache` in the bundles (7 KB with its `obliterator` dependency): the SDK's
 * DynamoDB endpoint-discovery cache (`@aws-sdk/endpoint-cache`) is its only user and calls only the members
 * below. A Map keeps insertion order, so re-inserting on `get` and evicting the first key is least recently used.
 */
export default class LruCache<K, V> {
  readonly #capacity: number;
  readonly #items = new Map<K, V>();

  constructor(capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0))
      throw new Error('LruCache capacity must be a positive integer');
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#items.size;
  }

  has(key: K): boolean {
    return this.#items.has(key);
  }

  /** The value without marking it used. */
  peek(key: K): V | undefined {
    return this.#items.get(key);
  }

  get(key: K): V | undefined {
    if (!this.#items.has(key)) return undefined;
    const value = this.#items.get(key) as V;
    this.#items.delete(key);
    this.#items.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.#items.delete(key);
    this.#items.set(key, value);
    if (this.#items.size > this.#capacity) {
      const oldest = this.#items.keys().next();
      if (!oldest.done) this.#items.delete(oldest.value);
    }
    return this;
  }

  clear(): void {
    this.#items.clear();
  }
}
