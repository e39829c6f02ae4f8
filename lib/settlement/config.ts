import { BeneficiarySchema } from '../payouts/index.js';
import { SettlementCategory } from '../provider/index.js';
import { describeIssues, fieldIssues } from '../shared/validation.js';
import * as z from '../shared/zod.js';
import { SettlementConfigurationError } from './errors.js';
import type { SettlementPolicy } from './policy.js';

const HOURS_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$/;

const koboVar = (fallback: number) =>
  z.pipe(
    z.optional(z.string().check(z.regex(/^\d+$/, 'must be a whole number of kobo'))),
    z.transform((value: string | undefined) => (value === undefined ? fallback : Number(value))),
  );

/**
 * The settlement policy's environment variables. Instant settlement is off unless the destination account
 * is configured; when any destination variable is set, all three must be.
 */
export const SettlementEnvSchema = z.lazy(() =>
  z
    .object({
      SETTLEMENT_DESTINATION_BANK_CODE: z.optional(z.string()),
      SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: z.optional(z.string()),
      SETTLEMENT_DESTINATION_ACCOUNT_NAME: z.optional(z.string()),
      /** Smallest amount worth paying out (after the keep-back). Default 100 kobo (1.00). */
      SETTLEMENT_MIN_KOBO: koboVar(100),
      /** Kept back from every settlement. Default 0. */
      SETTLEMENT_KEEP_BACK_KOBO: koboVar(0),
      /** `HH:MM-HH:MM` on the Lagos clock, may wrap midnight; default all day. */
      SETTLEMENT_ALLOWED_HOURS: z._default(
        z.string().check(z.regex(HOURS_PATTERN, 'must be HH:MM-HH:MM (Lagos time), e.g. 08:00-18:00')),
        '00:00-24:00',
      ),
      /**
       * ISO 8601 instant: settlements created before it are never paid automatically (`BEFORE_CUTOFF`). Default:
       * the moment instant settlement was first turned on, recorded in the table by the first trigger.
       */
      SETTLEMENT_SINCE: z.optional(
        z
          .string()
          .check(
            z.refine(
              (value) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)),
              'must be an ISO 8601 instant, e.g. 2026-11-23T00:00:00Z',
            ),
          ),
      ),
      /** Comma-separated settlement categories to pay out. */
      SETTLEMENT_CATEGORIES: z._default(
        z.string(),
        `${SettlementCategory.Merchant},${SettlementCategory.Card}`,
      ),
    })
    .check(
      z.refine(
        (env) => {
          const set = [
            env.SETTLEMENT_DESTINATION_BANK_CODE,
            env.SETTLEMENT_DESTINATION_ACCOUNT_NUMBER,
            env.SETTLEMENT_DESTINATION_ACCOUNT_NAME,
          ].filter((value) => value !== undefined && value !== '').length;
          return set === 0 || set === 3;
        },
        {
          message:
            'set all three of SETTLEMENT_DESTINATION_BANK_CODE, _ACCOUNT_NUMBER and _ACCOUNT_NAME, or none',
          path: ['SETTLEMENT_DESTINATION_BANK_CODE'],
        },
      ),
    ),
);

const CategoriesSchema = z.lazy(() =>
  z
    .array(z.enum([SettlementCategory.Merchant, SettlementCategory.Card, SettlementCategory.Subaccount]))
    .check(z.minLength(1)),
);

/**
 * The policy from the environment, or undefined when instant settlement is not configured.
 *
 * @example
 * settlementPolicyFromEnv({ SETTLEMENT_DESTINATION_BANK_CODE: '058', SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0123456789',
 *   SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd', SETTLEMENT_ALLOWED_HOURS: '08:00-18:00' });
 * @throws SettlementConfigurationError naming the variable
 */
export function settlementPolicyFromEnv(
  env: Record<string, string | undefined>,
): SettlementPolicy | undefined {
  const parsed = SettlementEnvSchema.safeParse(env);
  if (!parsed.success) throw configError(describeIssues(fieldIssues(parsed.error)));
  const config = parsed.data;
  if (!config.SETTLEMENT_DESTINATION_ACCOUNT_NUMBER) return undefined;
  const destination = BeneficiarySchema.safeParse({
    bankCode: config.SETTLEMENT_DESTINATION_BANK_CODE,
    accountNumber: config.SETTLEMENT_DESTINATION_ACCOUNT_NUMBER,
    accountName: config.SETTLEMENT_DESTINATION_ACCOUNT_NAME,
  });
  if (!destination.success) {
    const names: Record<string, string> = {
      bankCode: 'SETTLEMENT_DESTINATION_BANK_CODE',
      accountNumber: 'SETTLEMENT_DESTINATION_ACCOUNT_NUMBER',
      accountName: 'SETTLEMENT_DESTINATION_ACCOUNT_NAME',
    };
    throw configError(
      describeIssues(
        fieldIssues(destination.error).map((issue) => ({ ...issue, path: names[issue.path] ?? issue.path })),
      ),
    );
  }
  const categories = CategoriesSchema.safeParse(
    config.SETTLEMENT_CATEGORIES.split(',')
      .map((value) => value.trim())
      .filter((value) => value !== ''),
  );
  if (!categories.success) {
    throw configError(
      `SETTLEMENT_CATEGORIES: must list MERCHANT_SETTLEMENT, CARD_SETTLEMENT or SUBACCOUNT_SETTLEMENT (INSTANT_SETTLEMENT records are payouts themselves): ${describeIssues(fieldIssues(categories.error))}`,
    );
  }
  const allowedMinutes = parseHours(config.SETTLEMENT_ALLOWED_HOURS);
  if (allowedMinutes.from === allowedMinutes.to) {
    throw configError(
      'SETTLEMENT_ALLOWED_HOURS: an empty window would never pay; use 00:00-24:00 for all day',
    );
  }
  return {
    destination: destination.data,
    minimumKobo: config.SETTLEMENT_MIN_KOBO,
    keepBackKobo: config.SETTLEMENT_KEEP_BACK_KOBO,
    allowedMinutes,
    categories: [...new Set(categories.data)],
    ...(config.SETTLEMENT_SINCE !== undefined && {
      since: new Date(config.SETTLEMENT_SINCE).toISOString(),
    }),
  };
}

function parseHours(text: string): { from: number; to: number } {
  const match = HOURS_PATTERN.exec(text);
  const [, fh, fm, th, tm] = match ?? [];
  const from = Number(fh) * 60 + Number(fm);
  const to = Number(th) * 60 + Number(tm);
  if (from >= 24 * 60 || to > 24 * 60)
    throw configError('SETTLEMENT_ALLOWED_HOURS: 24:00 is only valid as 24:00');
  return { from, to };
}

function configError(detail: string): SettlementConfigurationError {
  return new SettlementConfigurationError(`invalid settlement configuration: ${detail}`);
}
