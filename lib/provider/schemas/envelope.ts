import * as z from 'zod/mini';

/**
 * Success envelope. `status: true` is required; `message` is required except on the five endpoints the
 * interface names (GET /transaction/info, /payout/details, /payout/single/recurrent, /payout/single/schedule
 * and /virtual-accounts), where it is tolerated if present.
 */
export function envelope<T extends z.ZodMiniType>(data: T, message: 'required' | 'absent') {
  // Built on first use: every resource declares its envelopes at load, and a function calls only a few of them.
  return z.lazy(() =>
    z.looseObject({
      status: z.literal(true),
      message: message === 'required' ? z.string() : z.optional(z.string()),
      data,
    }),
  );
}

/** Error body: `{ status: false, message }`. Read leniently: a garbled error body still yields the status. */
export const errorBody = z.lazy(() =>
  z.looseObject({ status: z.optional(z.boolean()), message: z.optional(z.string()) }),
);
