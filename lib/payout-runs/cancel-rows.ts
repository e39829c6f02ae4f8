import type { Principal } from '../controls/index.js';
import type { CreatePayoutCommand, CreatePayoutResult, Payout } from '../payouts/index.js';
import { forEachAtOnce } from '../shared/at-once.js';
import { InvalidTransitionError } from '../shared/errors.js';
import type { RunRow } from './model.js';

/** What runs need of the payouts: the engine's create (idempotent per key), read and cancel. */
export interface RunPayouts {
  create(command: CreatePayoutCommand): Promise<CreatePayoutResult>;
  get(id: string): Promise<Payout | undefined>;
  cancel(id: string, actor: Principal, reason?: string): Promise<Payout>;
}

/** Payouts cancelled at once. */
const CANCELS_AT_ONCE = 16;

/**
 * Cancels the payouts of `rows` that are not yet claimed; those claimed or sent already stand (the engine refuses
 * their cancel). Used by a run's cancel and by a materialisation that finds its run cancelled under it.
 */
export async function cancelRowPayouts(
  payouts: RunPayouts,
  rows: readonly RunRow[],
  actor: Principal,
  reason: string,
): Promise<{ cancelled: number; standing: number }> {
  let cancelled = 0;
  let standing = 0;
  await forEachAtOnce(
    rows.filter((row) => row.payoutId !== undefined),
    CANCELS_AT_ONCE,
    async (row) => {
      try {
        await payouts.cancel(row.payoutId as string, actor, reason);
        cancelled++;
      } catch (error) {
        // Claimed or sent already (or cancelled already): the engine refuses, and the row stands.
        if (!(error instanceof InvalidTransitionError)) throw error;
        standing++;
      }
    },
  );
  return { cancelled, standing };
}
