/**
 * Runs `work` on every item, at most `atOnce` at a time, each worker taking the next item when its last is done;
 * rejects with the first failure (the workers already running finish their current item).
 *
 * @example await forEachAtOnce(batches, 4, (batch) => writeBatch(batch));
 */
export async function forEachAtOnce<T>(
  items: readonly T[],
  atOnce: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
}
