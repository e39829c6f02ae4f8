import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * The part of a DynamoDB stream record the translation reads. The Lambda event and the Streams API type
 * the images differently, so they are taken as plain objects here.
 */
export interface PayoutStreamRecord {
  readonly eventName?: string;
  readonly dynamodb?: {
    readonly NewImage?: Readonly<Record<string, object>>;
    readonly OldImage?: Readonly<Record<string, object>>;
  };
}

/** DynamoDB JSON to plain values; each translation validates the result, so no shape is trusted here. */
export function decode(image: Readonly<Record<string, object>>): Record<string, unknown> {
  return unmarshall(image as Record<string, AttributeValue>);
}
