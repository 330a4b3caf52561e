import { settleWithin } from './time.js';

/** Background work started from the update loop, tracked so stop() can wait for it briefly. */
export class TaskSet {
  private readonly tasks = new Set<Promise<void>>();

  /** Starts `work`; its failure is handed to `onError` and never escapes. */
  run(work: () => Promise<void>, onError: (err: unknown) => void): void {
    const task = work().catch(onError);
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Resolves when every running task has settled, or after `ms`. */
  async settle(ms: number): Promise<void> {
    if (this.tasks.size === 0) return;
    await settleWithin(Promise.allSettled([...this.tasks]), ms);
  }
}
