import * as z from 'zod/mini';

/** Major-unit amount exactly as on the wire (convert with lib/money.ts). */
export const amount = z.number();
/** ISO 8601 timestamp: `Z` with milliseconds in listings, `+01:00` without in wallet operations. */
export const timestamp = z.iso.datetime({ offset: true });
/** Calendar date `YYYY-MM-DD`. */
export const calendarDate = z.iso.date();
/** Free-form key/value object (request metadata echoes). */
export const metadata = z.record(z.string(), z.unknown());

/** The eight originator/beneficiary bank and account fields. */
export const bankParties = () => ({
  originatorBankCode: z.string(),
  originatorBankName: z.string(),
  originatorAccountName: z.string(),
  originatorAccountNumber: z.string(),
  beneficiaryBankCode: z.string(),
  beneficiaryBankName: z.string(),
  beneficiaryAccountName: z.string(),
  beneficiaryAccountNumber: z.string(),
});

/** Merchant reference embedded in payment-link transactions. */
export const merchantRef = z.lazy(() => z.looseObject({ id: z.string(), businessName: z.string() }));
