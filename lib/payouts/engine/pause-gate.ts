import type { Controls } from '../model.js';
import type { PayoutStore } from '../store/payout-store.js';

/**
 * The pause, as every claim checks it. The authoritative check is a strongly consistent read of the controls
 * item started after the claim committed (`pausedAfterClaim`): a pause that landed before the claim is seen
 * and the claim given back unsent, so once `pausePayouts` returns no payout claimed afterwards reaches the
 * provider, as with the ConditionCheck the claim's transaction used to carry (2 write units per claim), and
 * one landing between the claim and the read stops it too. `pausedBeforeClaim` only spares writes: while the
 * last state seen was paused it reads again before claiming, so a long pause costs the sweeper a read per
 * payout, not a claim and a release with two audit events. See docs/data-model.md, "Write cost".
 */
export class PauseGate {
  #lastSeenPaused = false;

  constructor(private readonly store: Pick<PayoutStore, 'getControls'>) {}

  /** True when payouts are paused as far as this process knows; reads only when it last saw them paused. */
  async pausedBeforeClaim(): Promise<boolean> {
    if (!this.#lastSeenPaused) return false;
    return this.pausedAfterClaim();
  }

  /** A strongly consistent read of the pause, started now (after the caller's claim committed). */
  async pausedAfterClaim(): Promise<boolean> {
    return this.observe(await this.store.getControls()).paused;
  }

  /** Records controls this process read or wrote. */
  observe(controls: Controls): Controls {
    this.#lastSeenPaused = controls.paused;
    return controls;
  }
}
