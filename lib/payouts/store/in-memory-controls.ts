import { DailyCapExceededError, PayoutsPausedError } from '../../controls/index.js';
import type { CapChange } from './control-items.js';

/**
 * The ops controls a money claim commits with (control-items.ts), in memory: the pause and the daily-cap counters,
 * one per cap key and day. For the in-memory stores of unit tests; the table's control items are tested against
 * DynamoDB Local. Unsharded: a reservation fits when the day's total stays at or below its limit, which is what
 * the table's shards together allow (planCapReservation).
 *
 * @example
 * const controls = new InMemoryControls();
 * controls.pause(); // every claim that requires it now throws PayoutsPausedError
 */
export class InMemoryControls {
  #paused = false;
  readonly #capTotals = new Map<string, number>();

  get paused(): boolean {
    return this.#paused;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
  }

  /** The day's total reserved on a cap counter, in kobo. */
  capTotal(capKey: string, day: string): number {
    return this.#capTotals.get(`${capKey}#${day}`) ?? 0;
  }

  /** @throws PayoutsPausedError when payouts are paused */
  checkNotPaused(): void {
    if (this.#paused) throw new PayoutsPausedError('payouts are paused');
  }

  /**
   * Checks that the change fits without applying it: a release always fits, a reservation with a limit only when the
   * day's total stays at or below it. Check every condition of a write first, then `applyCap`, so a refused write
   * changes nothing.
   *
   * @throws DailyCapExceededError
   */
  checkCap(cap: CapChange): void {
    if (cap.limitKobo === undefined || cap.deltaKobo <= 0) return;
    if (this.capTotal(cap.capKey, cap.day) + cap.deltaKobo > cap.limitKobo) {
      throw new DailyCapExceededError(`the daily cap of ${cap.capKey} on ${cap.day} would be exceeded`);
    }
  }

  applyCap(cap: CapChange): void {
    this.#capTotals.set(`${cap.capKey}#${cap.day}`, this.capTotal(cap.capKey, cap.day) + cap.deltaKobo);
  }
}
