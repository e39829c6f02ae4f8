import type { GateLimits, Principal } from '../controls/index.js';
import type { CapChange, Controls, EngineConfig } from '../payouts/index.js';
import type { ProviderClient } from '../provider/index.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { BulkItemStore } from './bulk-item-store.js';
import type { BulkItemState, CorrectionResult, HeldCancellation, PendingCorrection } from './model.js';
import type { CorrectionFields } from './schemas.js';

/**
 * How long a single correction's claim holds its item: beyond the ops API function's timeout (29 s), so only a
 * request that stopped leaves one older than this, which the next correction of the item may then take over.
 */
export const SINGLE_CLAIM_LEASE_MS = 120_000;

/** The gate's limits and the daily cap a correction's claim reserves on. */
export type BulkCorrectionLimits = GateLimits & Pick<EngineConfig, 'dailyCapKobo' | 'capTimeZone'>;

/** Told what came of a held correction that a correction job's row had held (the job store). */
export interface HeldJobRowOutcomes {
  /** It was approved and sent: the row takes the send's outcome. */
  recordHeldOutcome(job: NonNullable<PendingCorrection['job']>, result: CorrectionResult): Promise<void>;
  /** It was withdrawn before anyone approved it: the row ends `cancelled`, nothing sent. */
  recordHeldCancellation(
    job: NonNullable<PendingCorrection['job']>,
    cancelled: HeldCancellation,
  ): Promise<void>;
}

/** How a correction job's row is held or claimed (lib/bulk-corrections/correction-jobs.ts). */
export interface JobRowHooks {
  readonly job: NonNullable<PendingCorrection['job']>;
  /** The id its held correction takes: fixed when the job was accepted, so a redelivery holds it once. */
  readonly correctionId: string;
  /**
   * Takes the row's claim before the provider call, in one transaction with `cap`, the reservation of its amount
   * at stake on the daily cap (none when nothing is at stake); false when another delivery holds it (nothing is
   * sent). A `paused` result after the claim was taken means the pause was read after it: the caller gives the
   * claim back (the service has given the reservation back already).
   *
   * @throws DailyCapExceededError when the reservation would pass the cap (nothing claimed)
   */
  readonly claim: (cap: CapChange | undefined) => Promise<boolean>;
}

/**
 * Sends a claimed correction (its claim taken, its amount at stake reserved as `cap`) and gives the reservation back
 * when the provider proves it moved no money (correction-service.ts, `sendReserved`).
 */
export type SendReserved = (
  id: string,
  fields: CorrectionFields,
  actor: Principal,
  cap: CapChange | undefined,
  approvedBy?: Principal,
  read?: BulkItemState,
) => Promise<CorrectionResult>;

/**
 * What every step of a correction works with: the service's options, resolved once (BulkCorrectionService builds it),
 * and the send step, so that the claims and the approval reach the provider only through the file that judges.
 */
export interface CorrectionContext {
  readonly store: BulkItemStore;
  readonly provider: Pick<ProviderClient, 'bulkPayouts'>;
  readonly limits: BulkCorrectionLimits;
  readonly controls: () => Promise<Controls>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly heldJobRows: HeldJobRowOutcomes | undefined;
  readonly sendReserved: SendReserved;
}
