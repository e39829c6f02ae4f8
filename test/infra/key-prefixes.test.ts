import { describe, expect, it } from 'vitest';
import { KeyPrefix } from '../../infra/config/key-prefixes.js';
import { bulkItemKeys } from '../../lib/bulk-corrections/store/dynamodb-bulk-item-store.js';
import { jobKeys } from '../../lib/bulk-corrections/store/dynamodb-job-store.js';
import { operatorAccessKey } from '../../lib/operators/access.js';
import { operatorKeys } from '../../lib/operators/index.js';
import { PayoutOrigin } from '../../lib/payouts/model.js';
import { recurrenceKeys } from '../../lib/recurrence/store/table-keys.js';
import { acceptedRefundKeys } from '../../lib/refunds/accepted-refund-item.js';
import { refundKeys } from '../../lib/refunds/store/dynamodb-refund-store.js';
import { settlementKeys } from '../../lib/settlement/store/dynamodb-decision-store.js';
import { statementKeys } from '../../lib/statements/index.js';
import { keys } from '../../lib/table/index.js';
import { wildcardMatches } from '../support/iam/stack-policies.js';

/** Every pattern the IAM conditions use, by name; a payout idempotency pattern per origin. */
const patterns: Record<string, string> = Object.fromEntries(
  Object.entries(KeyPrefix).flatMap(([name, pattern]) =>
    typeof pattern === 'string'
      ? [[name, pattern]]
      : Object.values(PayoutOrigin).map((origin) => [`${name}(${origin})`, pattern(origin)]),
  ),
);

/** The partition keys lib/ writes, from its own key builders, each with the one pattern that must name it. */
const written: [string, string][] = [
  [keys.payout('01J0').pk, 'payout'],
  [keys.audit('01J0', 3).pk, 'payout'],
  ...Object.values(PayoutOrigin).map((origin): [string, string] => [
    keys.idempotency(origin, 'k#1').pk,
    `payoutIdempotency(${origin})`,
  ]),
  [keys.controls().pk, 'controls'],
  [keys.dailyCap('daily', '2026-03-02').pk, 'dailyCap'],
  [refundKeys.refund('r1').pk, 'refund'],
  [refundKeys.audit('r1', 2).pk, 'refund'],
  [acceptedRefundKeys.byProviderRefundId('5a4db0c0-0000-4000-8012-000000000001').pk, 'refund'],
  [refundKeys.refundedTotal('t1').pk, 'refundedTotal'],
  [refundKeys.idempotency('k1').pk, 'refundIdempotency'],
  [recurrenceKeys.recurrence('rc1').pk, 'recurrence'],
  [recurrenceKeys.occurrence('rc1', '2026-03-02').pk, 'recurrence'],
  [recurrenceKeys.idempotency('k1').pk, 'recurrenceIdempotency'],
  [settlementKeys.decision('s1').pk, 'settlement'],
  [settlementKeys.deferral('s1').pk, 'settlement'],
  [settlementKeys.enabledSince.pk, 'settlementConfig'],
  [jobKeys.job('j1').pk, 'correctionJob'],
  [jobKeys.item('j1', 0).pk, 'correctionJob'],
  [jobKeys.idempotency('k1').pk, 'correctionJobIdempotency'],
  [bulkItemKeys.latest('b1').pk, 'bulkItem'],
  [bulkItemKeys.correction('b1', 'c1').pk, 'bulkItem'],
  [statementKeys.day('2026-03-01'), 'statement'],
  [operatorKeys.audit('bob', '2026-03-02T09:00:00.000Z', '01J0').pk, 'operator'],
  [operatorKeys.proposal('bob', '01J0').pk, 'operator'],
  [operatorAccessKey('0f6c2b9e-5d41-4b7a-9c3e-2a1d8e7f6b50').pk, 'operatorAccess'],
];

describe('partition-key patterns of the write conditions (infra/config/key-prefixes.ts)', () => {
  it.each(written)('%s is named by %s and by no other pattern', (key, name) => {
    const matching = Object.keys(patterns).filter((candidate) =>
      wildcardMatches(patterns[candidate] ?? '', key),
    );
    expect(matching).toEqual([name]);
  });
});
