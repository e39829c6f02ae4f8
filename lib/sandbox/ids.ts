/**
 * Deterministic identifiers: no randomness, so every run (and every reset) yields the same ids.
 * Ids are UUID-shaped; `group` separates resource kinds so ids never collide across kinds.
 */
export function uuidFor(group: number, n: number): string {
  const g = group.toString(16).padStart(3, '0');
  const tail = n.toString(16).padStart(12, '0');
  return `5a4db0c0-0000-4000-8${g}-${tail}`;
}

export const ID_GROUP = {
  merchant: 0x001,
  wallet: 0x002,
  childAccount: 0x003,
  paymentLink: 0x004,
  paymentLinkTransaction: 0x005,
  paymentStatus: 0x006,
  settlement: 0x007,
  walletTransaction: 0x008,
  recurrent: 0x009,
  scheduled: 0x00a,
  virtualAccount: 0x00b,
  bulkPayout: 0x00c,
  bulkItem: 0x00d,
  agent: 0x00e,
  terminal: 0x00f,
  usage: 0x010,
  subaccount: 0x011,
  refund: 0x012,
  reference: 0x013,
} as const;
