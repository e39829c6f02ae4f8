import { settlementSchema, storeSchema, walletTransactionSchema } from '../../provider/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

type Def = {
  type: string;
  shape?: Record<string, z.ZodMiniType>;
  innerType?: z.ZodMiniType;
  getter?: () => z.ZodMiniType;
};
const defOf = (schema: z.ZodMiniType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** A provider field without its `z.lazy`, `optional` and `nullable` wrappers. */
function bare(schema: z.ZodMiniType): z.ZodMiniType {
  const def = defOf(schema);
  if (def.getter) return bare(def.getter());
  return def.innerType ? bare(def.innerType) : schema;
}

/**
 * The fields of a provider record as answered: those its schema in lib/provider/schemas documents (the provider
 * may add others, left out), each string at most 100 characters (`presentProviderPage` clips), numbers (amounts in
 * naira) and nested records as they are. So a page's largest size is known (test/infra/api-answer-sizes.test.ts).
 */
export const providerFields = (record: z.ZodMiniType): Record<string, z.ZodMiniType> =>
  defOf(bare(record)).shape ?? {};

function answeredOf(record: z.ZodMiniType): z.ZodMiniObject {
  return z.object(
    Object.fromEntries(
      Object.entries(providerFields(record)).map(([key, declared]) => {
        const inner = bare(declared);
        const type = defOf(inner).type;
        const value =
          type === 'object' ? answeredOf(inner) : type === 'string' ? field.upTo(FIELD_MAXIMA.name) : inner;
        return [key, inner === declared ? value : z.optional(z.nullable(value))];
      }),
    ),
  );
}

/** A page of a provider listing: at most `perPage` (1 to 100) of its records. */
const providerPageOf = (record: z.ZodMiniType) =>
  z.lazy(() =>
    z.object({
      items: z.array(answeredOf(record)).check(z.maxLength(FIELD_MAXIMA.page)),
      pagination: z.object({ page: z.int(), perPage: z.int(), totalRecords: z.int(), totalPages: z.int() }),
    }),
  );

export const ProviderSettlementPageSchema = providerPageOf(settlementSchema);
export const ProviderWalletTransactionPageSchema = providerPageOf(walletTransactionSchema);
export const ProviderStorePageSchema = providerPageOf(storeSchema);
