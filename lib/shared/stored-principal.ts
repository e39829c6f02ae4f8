import * as z from './zod.js';

/**
 * Who did something, as every store's items hold it (`requestedBy`, `approvedBy`, …): one schema for the table's
 * stores, built on first use, so each bundle carries it once.
 */
export const storedPrincipal = z.lazy(() => z.object({ id: z.string(), kind: z.enum(['user', 'system']) }));

/** An approval as stored (`firstApproval`: the first of two): who and when. */
export const storedApproval = z.lazy(() => z.object({ actor: storedPrincipal, at: z.string() }));

/** A second person's refusal as stored (`rejection`): who, why and when. */
export const storedRejection = z.lazy(() =>
  z.object({ actor: storedPrincipal, reason: z.string(), at: z.string() }),
);
