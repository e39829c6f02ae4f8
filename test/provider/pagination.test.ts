import { describe, expect, it } from 'vitest';
import { autoPage, normalizePagination } from '../../lib/provider/pagination.js';
import type { Page } from '../../lib/provider/types.js';

function fakeList(
  totalRecords: number,
  perPage: number,
  reportedTotalPages = Math.ceil(totalRecords / perPage),
) {
  const calls: number[] = [];
  const fetchPage = async (page: number): Promise<Page<number>> => {
    calls.push(page);
    const start = (page - 1) * perPage;
    const items = Array.from(
      { length: Math.max(0, Math.min(perPage, totalRecords - start)) },
      (_, i) => start + i,
    );
    const raw = { page, size: perPage, totalRecords, totalPages: reportedTotalPages };
    return { message: 'ok', data: {}, items, pagination: normalizePagination(raw) };
  };
  return { calls, fetchPage };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('autoPage', () => {
  it('walks every page up to totalPages', async () => {
    const { calls, fetchPage } = fakeList(5, 2);
    expect(await collect(autoPage(fetchPage))).toEqual([0, 1, 2, 3, 4]);
    expect(calls).toEqual([1, 2, 3]);
  });

  it('stops at maxPages', async () => {
    const { calls, fetchPage } = fakeList(100, 10);
    expect(await collect(autoPage(fetchPage, { maxPages: 2 }))).toHaveLength(20);
    expect(calls).toEqual([1, 2]);
  });

  it('stops on an empty page even if totalPages says more', async () => {
    const { calls, fetchPage } = fakeList(3, 2, 99);
    expect(await collect(autoPage(fetchPage))).toEqual([0, 1, 2]);
    expect(calls).toEqual([1, 2, 3]);
  });

  it('fetches nothing more once the consumer stops', async () => {
    const { calls, fetchPage } = fakeList(100, 10);
    for await (const item of autoPage(fetchPage)) if (item === 3) break;
    expect(calls).toEqual([1]);
  });

  it('handles an empty list', async () => {
    const { fetchPage } = fakeList(0, 10);
    expect(await collect(autoPage(fetchPage))).toEqual([]);
  });
});

describe('normalizePagination', () => {
  it('maps size and perpage to perPage and keeps the raw block', () => {
    expect(normalizePagination({ page: 2, size: 50, totalRecords: 120, totalPages: 3 })).toEqual({
      page: 2,
      perPage: 50,
      totalRecords: 120,
      totalPages: 3,
      raw: { page: 2, size: 50, totalRecords: 120, totalPages: 3 },
    });
    expect(normalizePagination({ page: 1, perpage: 20, totalRecords: 0, totalPages: 0 }).perPage).toBe(20);
  });
});
