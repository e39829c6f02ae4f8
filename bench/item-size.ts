import { unmarshall } from '@aws-sdk/util-dynamodb';
import { itemBytes as plainItemBytes } from '../lib/shared/item-size.js';

/** A marshalled attribute value, as it travels on the wire. */
export type AttributeValue = {
  readonly S?: string;
  readonly N?: string;
  readonly B?: Uint8Array;
  readonly BOOL?: boolean;
  readonly NULL?: boolean;
  readonly M?: Record<string, AttributeValue>;
  readonly L?: readonly AttributeValue[];
  readonly SS?: readonly string[];
  readonly NS?: readonly string[];
};

/**
 * An item's size by DynamoDB's rules, from its wire form: the one rule the store sizes its items by
 * (lib/shared/item-size.ts), applied to the item's values.
 */
export function itemBytes(item: Record<string, AttributeValue>): number {
  return plainItemBytes(unmarshall(item as Parameters<typeof unmarshall>[0]));
}
