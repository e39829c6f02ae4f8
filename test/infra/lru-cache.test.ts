import { describe, expect, it } from 'vitest';
import LruCache from '../../infra/bundling/replacements/lru-cache.js';

describe("the bundles' LRU cache (in place of mnemonist/lru-cache)", () => {
  it('evicts the least recently used key beyond its capacity; get marks a key used, peek does not', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1).set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
    expect(cache.peek('a')).toBe(1);
    cache.set('d', 4);
    expect([cache.has('a'), cache.has('c'), cache.has('d')]).toEqual([false, true, true]);
    expect(cache.size).toBe(2);
  });

  it('answers undefined for a missing key, replaces a value in place, and empties on clear', () => {
    const cache = new LruCache<string, number[]>(1000);
    expect(cache.get('missing')).toBeUndefined();
    cache.set('k', [1]);
    cache.set('k', []);
    expect(cache.peek('k')).toEqual([]);
    cache.clear();
    expect(cache.has('k')).toBe(false);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new LruCache(0)).toThrow(/positive integer/);
  });
});
