import { settlementSchema } from '../../provider/schemas/settlement.js';
import { storeSchema } from '../../provider/schemas/store.js';
import { walletTransactionSchema } from '../../provider/schemas/transaction.js';
import * as z from '../../shared/zod.js';

/** A page of a provider listing: its records as the provider sends them (amounts in naira). */
const providerPageOf = <T extends z.ZodMiniType>(item: T) =>
  z.object({
    items: z.array(item),
    pagination: z.object({
      page: z.int(),
      perPage: z.int(),
      totalRecords: z.int(),
      totalPages: z.int(),
    }),
  });

export const ProviderSettlementPageSchema = providerPageOf(settlementSchema);
export const ProviderWalletTransactionPageSchema = providerPageOf(walletTransactionSchema);
export const ProviderStorePageSchema = providerPageOf(storeSchema);
