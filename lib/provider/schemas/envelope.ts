import * as z from 'zod/mini';

/** A success envelope as parsed: `status`, the `message` if any, `data`, and whatever else it carried. */
export type SuccessEnvelope<T> = { status: true; message?: string | undefined; data: T };

/**
 * Success envelope. `status: true` is required; `message` is required except on the five endpoints the
 * interface names (GET /transaction/info, /payout/details, /payout/single/recurrent, /payout/single/schedule
 * and /virtual-accounts), where it is tolerated if present.
 */
export function envelope<T>(data: z.ZodMiniType<T>, message?: 'absent'): z.ZodMiniType<SuccessEnvelope<T>> {
  // Built on first use: every resource declares its envelopes at load, and a function calls only a few of them.
  return z.lazy(() =>
    z.looseObject({
      status: z.literal(true),
      message: message === 'absent' ? z.optional(z.string()) : z.string(),
      data,
    }),
  );
}

/** Error body: `{ status: false, message }`. Read leniently: a garbled error body still yields the status. */
export const errorBody = z.lazy(() =>
  z.looseObject({ status: z.optional(z.boolean()), message: z.optional(z.string()) }),
);
