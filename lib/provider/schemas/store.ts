import * as z from 'zod/mini';

// Each schema is built on first use (z.lazy): every function loads all the provider's resources but parses few of
// them, and building them at load was a large part of a cold start's zod work (docs/cold-start.md).
import { amount, timestamp } from './common.js';
import { listData, sizePagination } from './pagination.js';

/** What the list and the detail say of a store alike. */
const storeFields = () => ({
  id: z.string(),
  name: z.string(),
  code: z.nullable(z.string()),
  phoneNumber: z.string(),
  email: z.nullable(z.string()),
  website: z.string(),
  address: z.string(),
});

/** Item of `data.stores` in GET /branch/store. */
export const storeSchema = z.lazy(() =>
  z.looseObject({
    ...storeFields(),
    walletId: z.string(),
    createdAt: timestamp,
  }),
);
export type Store = z.infer<typeof storeSchema>;
export const storeListData = listData(
  { ...sizePagination, totalStoreBalance: amount },
  'stores',
  storeSchema,
);

/** `data` of GET /branch/store/info. `code` and `email` may be null as in the list. */
export const storeDetailSchema = z.lazy(() =>
  z.looseObject({
    ...storeFields(),
    createdAt: timestamp,
    agents: z.array(
      z.looseObject({
        id: z.string(),
        firstName: z.string(),
        lastName: z.string(),
        email: z.string(),
        createdAt: timestamp,
      }),
    ),
    wallet: z.looseObject({
      id: z.string(),
      status: z.string(),
      bankName: z.string(),
      accountName: z.string(),
      accountNumber: z.string(),
      bookedBalance: amount,
      availableBalance: amount,
    }),
  }),
);
export type StoreDetail = z.infer<typeof storeDetailSchema>;

const named = () => ({ id: z.string(), name: z.string(), code: z.string(), createdAt: timestamp });

/** Item of `data.usages` in GET /branch/terminal/usage. */
export const terminalUsageSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    createdAt: timestamp,
    // A store's code may be null (as in the store list), also when embedded here.
    store: z.looseObject({ ...named(), code: z.nullable(z.string()) }),
    terminal: z.looseObject(named()),
    agent: z.looseObject({
      id: z.string(),
      firstName: z.string(),
      lastName: z.string(),
      createdAt: timestamp,
    }),
  }),
);
export type TerminalUsage = z.infer<typeof terminalUsageSchema>;
export const terminalUsageListData = listData(sizePagination, 'usages', terminalUsageSchema);
