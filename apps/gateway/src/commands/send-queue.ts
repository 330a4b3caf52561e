/**
 * A bounded FIFO between many producers (the hub's `send`) and the one consumer that writes a
 * Link stream. Producers never wait: `push` refuses when full or closed, so a stalled stream
 * fails sends fast instead of buffering without bound.
 */
export class SendQueue<T> {
  private items: T[] = [];
  private head = 0;
  private waiter: ((open: boolean) => void) | undefined;
  private closed = false;

  constructor(readonly limit: number) {}

  /** Items waiting to be taken. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Appends `item`; false when the queue is full or closed (nothing is queued then). */
  push(item: T): boolean {
    if (this.closed || this.size >= this.limit) return false;
    this.items.push(item);
    this.wake(true);
    return true;
  }

  /** The oldest item, or undefined when none is waiting. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.head += 1;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Resolves true once an item is waiting, false once the queue is closed. One waiter at a time. */
  wait(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.size > 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Closes the queue and returns the items never taken. */
  close(): T[] {
    if (this.closed) return [];
    this.closed = true;
    const rest = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    this.wake(false);
    return rest;
  }

  private wake(open: boolean): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    waiter(open);
  }
}
