/**
 * A request stream the bench writes into without awaiting: `push` appends, the transport pulls
 * through the async iterator. (createWritableIterable's write() waits once per queued write,
 * which costs O(queue length) per message when hundreds are pipelined; this one costs O(1).)
 */
export class Pusher<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    this.items.push(item);
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  close(): void {
    this.closed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.items.length > 0) {
        const batch = this.items;
        this.items = [];
        yield* batch;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }
}
