import { describe, expect, it } from 'vitest';
import { DeadlineExceededError, signalWithDeadline, withinDeadline } from '../../lib/shared/deadline.js';

describe('deadlines computed from the time left', () => {
  it('take a fraction of a millisecond (a time left measured with performance.now) instead of throwing', async () => {
    await expect(withinDeadline(20.75, async () => 'done')).resolves.toBe('done');
    await expect(withinDeadline(1.5, () => new Promise(() => undefined))).rejects.toBeInstanceOf(
      DeadlineExceededError,
    );
    expect(signalWithDeadline(10.25).aborted).toBe(false);
  });

  it('abort at once when the deadline has already passed', async () => {
    await expect(withinDeadline(-3.5, () => new Promise(() => undefined))).rejects.toBeInstanceOf(
      DeadlineExceededError,
    );
  });
});
