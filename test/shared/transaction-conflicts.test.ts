import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { commitRetryingConflicts, MAX_CONFLICT_RETRIES } from '../../lib/shared/transaction-conflicts.js';

/**
 * The retry rule every store's transactions share. The cancellations are built here, not met on DynamoDB Local:
 * it cannot be made to answer a TransactionConflict on demand (the stores' own tests meet real ones under load, and
 * test/payouts/transaction-conflict.test.ts and test/recurrence/command-contention.test.ts inject them the same way).
 */
function cancelled(...codes: string[]): TransactionCanceledException {
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

/** A commit that fails with each of `failures` in turn, then commits. */
function failingThen(failures: readonly unknown[]) {
  let calls = 0;
  const commit = async () => {
    const failure = failures[calls];
    calls++;
    if (failure !== undefined) throw failure;
    return 'committed';
  };
  return { commit, calls: () => calls };
}

const refusedWith = (reasons: readonly (string | undefined)[]) => `refused: ${reasons.join(',')}`;

describe('commitRetryingConflicts', () => {
  it('sends a transaction again while it only collided with another, and answers its commit', async () => {
    const attempt = failingThen([
      cancelled('None', 'TransactionConflict'),
      cancelled('TransactionConflict', 'None'),
    ]);
    await expect(commitRetryingConflicts(attempt.commit, refusedWith)).resolves.toBe('committed');
    expect(attempt.calls()).toBe(3);
  });

  it(`gives conflicts that outlast ${MAX_CONFLICT_RETRIES} retries to the caller`, async () => {
    const attempt = failingThen(Array.from({ length: 20 }, () => cancelled('None', 'TransactionConflict')));
    await expect(commitRetryingConflicts(attempt.commit, refusedWith)).resolves.toBe(
      'refused: None,TransactionConflict',
    );
    expect(attempt.calls()).toBe(MAX_CONFLICT_RETRIES + 1);
  });

  it('never repeats a transaction whose condition failed, even beside a conflict: the record changed', async () => {
    const attempt = failingThen([cancelled('ConditionalCheckFailed', 'TransactionConflict')]);
    await expect(commitRetryingConflicts(attempt.commit, refusedWith)).resolves.toBe(
      'refused: ConditionalCheckFailed,TransactionConflict',
    );
    expect(attempt.calls()).toBe(1);
  });

  it('throws an error that is not a cancellation as it is, without asking the caller', async () => {
    const outage = new Error('socket hang up');
    const attempt = failingThen([outage]);
    let asked = false;
    await expect(
      commitRetryingConflicts(attempt.commit, () => {
        asked = true;
        return 'refused';
      }),
    ).rejects.toBe(outage);
    expect(asked).toBe(false);
    expect(attempt.calls()).toBe(1);
  });
});
