import { DailyCapExceededError } from '../../controls/index.js';
import { type CapChange, capUpdateItem, reserveOnCapShards, type TransactItem } from '../../payouts/index.js';
import { type DocumentClient, TransactWriteCommand, UpdateCommand } from '../../shared/document-client.js';
import { commitRetryingConflicts } from '../../shared/transaction-conflicts.js';

/**
 * A correction's claim (a job row's `queued -> sending`, an approval's `pending_approval -> approved`, a single
 * correction's claim item) committed in one transaction with its reservation on the daily cap's counter, as a
 * payout's and a refund's claims are: either both commit or neither. Without `cap` (nothing at stake) the claim
 * commits alone. A claim given back unsent commits the same way with `giveBack`, the reservation it returns.
 * False when the claim's own condition failed (another request holds it, or it is no longer ours).
 *
 * @throws DailyCapExceededError when the reservation would take the day's total past `cap.limitKobo` (nothing written)
 */
export async function claimWithCap(
  doc: DocumentClient,
  tableName: string,
  claim: TransactItem,
  cap: CapChange | undefined,
  giveBack?: CapChange,
): Promise<boolean> {
  const release = giveBack ? [capUpdateItem(tableName, releaseOf(giveBack))] : [];
  const commitWith = (capItems: readonly TransactItem[]) =>
    commitRetryingConflicts(
      async () => {
        await doc.send(new TransactWriteCommand({ TransactItems: [claim, ...capItems, ...release] }));
        return true;
      },
      (reasons, error) => {
        if (reasons[0] === 'ConditionalCheckFailed') return false;
        if (cap && reasons.slice(1, 1 + capItems.length).includes('ConditionalCheckFailed')) {
          throw new DailyCapExceededError(`the daily cap of ${cap.capKey} on ${cap.day} would be exceeded`, {
            cause: error,
          });
        }
        throw error;
      },
    );
  if (!cap) return commitWith([]);
  // On the counter's shards as payouts' and refunds' claims reserve (DAILY_CAP_SHARDS): first on the claim's
  // home shard, then where the room is, so a correction is refused only when the day's whole cap is short.
  return reserveOnCapShards({
    doc,
    tableName,
    cap,
    homeId: claimIdOf(claim),
    commit: commitWith,
  });
}

/** The claimed item's key, as text: a stable home shard for the claim's reservation. */
function claimIdOf(claim: TransactItem): string {
  const key = claim.Update?.Key ?? claim.ConditionCheck?.Key ?? claim.Delete?.Key ?? claim.Put?.Item;
  return `${String(key?.pk)}|${String(key?.sk)}`;
}

/** A reservation's release: the same amount off the same day's counter, with no limit to meet. */
const releaseOf = (cap: CapChange): CapChange => ({
  capKey: cap.capKey,
  day: cap.day,
  deltaKobo: -cap.deltaKobo,
});

/**
 * Gives a reservation back to the day's counter. Only for a correction that provably moved no money: a claim given
 * back unsent (paused after it), or one the provider refused or reports invalid; never on an unknown outcome.
 */
export async function releaseCap(doc: DocumentClient, tableName: string, cap: CapChange): Promise<void> {
  const { Update } = capUpdateItem(tableName, releaseOf(cap));
  if (!Update) throw new Error('a cap update has an Update');
  await doc.send(new UpdateCommand(Update));
}
