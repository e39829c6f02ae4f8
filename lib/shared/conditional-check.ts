/**
 * Whether a DynamoDB write failed its condition expression (`ConditionalCheckFailedException`): the item was not in
 * the state the write expected, so nothing was written. Read by name, so that it holds for an error from any copy
 * of the SDK.
 *
 * @example if (isConditionalCheckFailed(error)) throw new ConcurrentModificationError('refund', id, { cause: error });
 */
export function isConditionalCheckFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
