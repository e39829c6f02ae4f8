// Apart from model.ts: the sweep's bundle carries model.ts and has no room for these values.

/**
 * How a row ended, for its run: its payout's final status (`needs_review` included: a person must look at it),
 * `refused` (the limits refused it at creation) or `cancelled_unsent` (the run was cancelled before it became a
 * payout). Each row's end is counted once onto the run (`ends`), by whichever of these happens first.
 */
export const ROW_ENDS = [
  'succeeded',
  'failed',
  'missed',
  'cancelled',
  'needs_review',
  'refused',
  'cancelled_unsent',
] as const;
export type RowEnd = (typeof ROW_ENDS)[number];
/** Row ends a person must look at: a run with any ends `needs_attention`. */
export const ATTENTION_ENDS: ReadonlySet<RowEnd> = new Set(['failed', 'missed', 'needs_review', 'refused']);
