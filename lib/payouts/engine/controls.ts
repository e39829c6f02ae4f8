import type { Controls, Principal } from '../model.js';
import type { EngineContext } from './context.js';

/**
 * Pauses all submissions. The pause is checked inside the same transaction that claims a payout, so once
 * this returns no new payout can start; payouts already mid-call finish and are recorded.
 */
export async function pausePayouts(ctx: EngineContext, actor: Principal, reason: string): Promise<Controls> {
  const controls: Controls = {
    paused: true,
    reason,
    updatedBy: actor,
    updatedAt: ctx.clock.now().toISOString(),
  };
  await ctx.store.setControls(controls);
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
  ctx.logger.warn('payouts resumed', { actor: actor.id });
  return controls;
}
