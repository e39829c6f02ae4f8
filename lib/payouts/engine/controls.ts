import type { Principal } from '../../controls/index.js';
import type { Controls } from '../model.js';
import type { EngineContext } from './context.js';

/**
 * Pauses all submissions. Every claim reads the pause after it committed and gives the payout back unsent
 * when paused (submit-payout.ts, `pausedNow`), so once this returns no new payout can start; payouts already
 * mid-call finish and are recorded.
 */
export function pausePayouts(ctx: EngineContext, actor: Principal, reason: string): Promise<Controls> {
  return setPaused(ctx, true, actor, reason);
}

/** Resumes submissions; pending payouts are picked up by the next sweep. */
export function resumePayouts(ctx: EngineContext, actor: Principal, reason = 'resumed'): Promise<Controls> {
  return setPaused(ctx, false, actor, reason);
}

async function setPaused(
  ctx: EngineContext,
  paused: boolean,
  actor: Principal,
  reason: string,
): Promise<Controls> {
  const controls: Controls = { paused, reason, updatedBy: actor, updatedAt: ctx.clock.now().toISOString() };
  await ctx.store.setControls(controls);
  ctx.pause.lastSeenPaused = paused;
  ctx.logger.warn(paused ? 'payouts paused' : 'payouts resumed', { actor: actor.id, reason });
  return controls;
}
