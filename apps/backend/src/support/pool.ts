/**
 * Runs `work` on every item with at most `concurrency` calls in flight, starting items in order;
 * resolves when all have settled. Used where a fixed batch must not flood a remote service. `work`
 * should handle its own failures: a rejection stops that worker (the others go on) and the run
 * then rejects with it once every worker has stopped.
 */
export async function forEachPooled<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a whole number of at least 1');
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
