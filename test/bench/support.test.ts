import { describe, expect, it } from 'vitest';
import { median, quantile } from '../../bench/support.js';

describe('the bench statistics', () => {
  it('interpolates a quantile between the two nearest ranks, whatever the order of the values', () => {
    const values = [40, 10, 30, 20];
    expect(quantile(values, 0)).toBe(10);
    expect(quantile(values, 0.25)).toBe(17.5);
    expect(quantile(values, 0.5)).toBe(25);
    expect(quantile(values, 0.75)).toBe(32.5);
    expect(quantile(values, 1)).toBe(40);
    expect(values).toEqual([40, 10, 30, 20]);
  });

  it('takes the median as the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([40, 10, 30, 20])).toBe(25);
    expect(median([])).toBeNaN();
  });

  it('has no quantile of nothing, and the one value of a single run', () => {
    expect(quantile([], 0.5)).toBeNaN();
    expect(quantile([7], 0.25)).toBe(7);
  });
});
