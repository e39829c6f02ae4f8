import type { TransactWriteCommandInput } from '../../shared/document-client.js';
import type { CapChange } from './payout-store.js';
import { keys } from './table-design.js';

/** One item of a TransactWriteItems. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * The pause check every money claim commits with: it fails when the ops controls say payouts are paused.
 * Shared by every writer that sends money (payouts, refunds), so a pause stops all of them at once.
 */
export function pauseCheckItem(tableName: string): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: keys.controls(),
      ConditionExpression: 'attribute_not_exists(pk) OR paused = :false',
      ExpressionAttributeValues: { ':false': false },
    },
  };
}

/**
 * The daily-cap counter's update for `reservations` claims together (a release counts none). Reserving fails
 * when the day's total would exceed `limitKobo`.
 */
export function capUpdateItem(tableName: string, cap: CapChange, reservations = 1): TransactItem {
  const reserving = cap.limitKobo !== undefined;
  return {
    Update: {
      TableName: tableName,
      Key: keys.dailyCap(cap.capKey, cap.day),
      UpdateExpression: 'ADD totalKobo :delta, reservations :one SET entity = :entity',
      ...(reserving && {
        ConditionExpression: 'attribute_not_exists(totalKobo) OR totalKobo <= :headroom',
      }),
      ExpressionAttributeValues: {
        ':delta': cap.deltaKobo,
        ':one': reserving ? reservations : 0,
        ':entity': 'dailyCap',
        ...(reserving && { ':headroom': (cap.limitKobo ?? 0) - cap.deltaKobo }),
      },
    },
  };
}
