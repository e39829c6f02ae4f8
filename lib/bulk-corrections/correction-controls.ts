import type { Judgement } from '../controls/index.js';
import type { CapChange } from '../payouts/index.js';
import { calendarDayIn } from '../shared/wall-clock.js';
import type { CorrectionContext } from './correction-context.js';
import { CorrectionOutcome, type CorrectionResult } from './model.js';

/**
 * The reservation of a judged correction's amount at stake on its cap counter for the day, or none when it puts
 * nothing at stake (a narration or phone number alone). An amount the gate does not know (`undefined`: never
 * seen here, or known only by the word of the person releasing it) is never reserved as 0: it is reserved as the
 * per-payout maximum in force, which its approver (always required for it) attests it is within.
 */
export function reservationOf(
  ctx: Pick<CorrectionContext, 'limits'>,
  judgement: Judgement,
  now: Date,
): CapChange | undefined {
  const kobo = judgement.amountAtStakeKobo ?? ctx.limits.maxInstructionKobo;
  if (kobo === 0) return undefined;
  return {
    capKey: judgement.capCounter,
    day: calendarDayIn(ctx.limits.capTimeZone, now),
    deltaKobo: kobo,
    limitKobo: ctx.limits.dailyCapKobo,
  };
}

/** The answer of a correction refused by the daily cap: nothing was sent. */
export function capExceeded(
  ctx: Pick<CorrectionContext, 'limits' | 'logger'>,
  id: string,
  cap: CapChange | undefined,
): CorrectionResult {
  ctx.logger.warn('daily cap exceeded', { bulkPayoutItemId: id, capKey: cap?.capKey });
  return {
    outcome: CorrectionOutcome.CapExceeded,
    failure: {
      code: 'DAILY_CAP_EXCEEDED',
      message: `the daily cap of ${ctx.limits.dailyCapKobo} kobo for ${cap?.capKey} would be exceeded by ${cap?.deltaKobo} kobo; nothing was sent`,
    },
  };
}

/** The answer of a correction while payouts are paused (nothing sent), or undefined when they are not. */
export async function pausedResult(
  ctx: Pick<CorrectionContext, 'controls'>,
): Promise<CorrectionResult | undefined> {
  const controls = await ctx.controls();
  if (!controls.paused) return undefined;
  return {
    outcome: CorrectionOutcome.Paused,
    failure: {
      code: 'PAYOUTS_PAUSED',
      message: `payouts are paused${controls.reason ? ` (${controls.reason})` : ''}; nothing was sent`,
    },
  };
}
