import type { Controls, Principal } from '../model.js';
import type { EngineContext } from './context.js';

/**
 * Pauses all submissions. Every claim reads the pause after it committed and gives the payout back unsent
 * when paused (engine/pause-gate.ts), so once this returns no new payout can start; payouts already mid-call
 * finish and are recorded.
 */
export async function pausePayouts(ctx: EngineContext, actor: Principal, reason: string): Promise<Controls> {
  const controls: Controls = {
    paused: true,
    reason,
    updatedBy: actor,
    updatedAt: ctx.clock.now().toISOString(),
  };
  await ctx.store.setControls(controls);
  ctx.pause.observe(controls);
  ctx.logger.warn('payouts paused', { actor: actor.id, reason });
  return controls;
}

/** Resumes submissions; pending payouts are picked up by the next sweep. */
export async function resumePayouts(
  ctx: EngineContext,
  actor: Principal,
  reason = 'resumed',
): Promise<Controls> {
  const controls: Controls = {
    paused: false,
    reason,
    updatedBy: actor,
    updatedAt: ctx.clock.now().toISOString(),
  };
  await ctx.store.setControls(controls);
  ctx.pause.observe(controls);
  ctx.logger.warn('payouts resumed', { actor: actor.id });
  return controls;
}
