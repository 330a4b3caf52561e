import { ApiError } from './errors.js';
import type { TgUpdate } from './types.js';

/** Update types Telegram leaves out when `allowed_updates` is empty or was never set. */
const OPT_IN_TYPES = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);

/** The 409 the real Bot API gives the older of two overlapping getUpdates requests. */
export const CONFLICT_DESCRIPTION = 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running';

/** What happened to an update offered to a bot's queue. */
export type EnqueueResult = { queued: true; update_id: number } | { queued: false; reason: string };

/** Options of one getUpdates call, already validated. */
export interface PollOptions {
  offset: number | undefined;
  limit: number;
  timeoutMs: number;
  allowedUpdates: readonly string[] | undefined;
}

type Wake = 'ready' | 'timeout' | 'conflict' | 'closed' | 'aborted';

/** What of a queue outlives a restart: the next update_id (ids only grow) and the unconfirmed updates. */
export interface QueueSnapshot {
  nextId: number;
  pending: TgUpdate[];
}

/**
 * One bot's pending updates and its long poll, with Telegram's semantics: ids only grow (also
 * across `clear()`, so a bot that kept its offset still sees new updates), updates whose type the
 * bot's `allowed_updates` excludes are never created, a getUpdates `offset` confirms (drops)
 * everything below it, and a new getUpdates terminates an older pending one with 409.
 */
export class UpdateQueue {
  private pending: TgUpdate[] = [];
  private nextId: number;
  private allowed: ReadonlySet<string> | null = null;
  private waiter: ((why: Wake) => void) | null = null;
  /** Ids of updates a test queued verbatim (kept until confirmed), see BotApiAnswer. */
  private readonly injected = new Set<number>();

  constructor(firstUpdateId: number) {
    this.nextId = firstUpdateId;
  }

  /**
   * Offers an update payload (one field such as `message`); assigns its update_id if queued.
   * `verbatim`: a test's own raw update (control API), not one the emulator made.
   */
  enqueue(payload: Record<string, unknown>, verbatim = false): EnqueueResult {
    const type = Object.keys(payload).find((key) => key !== 'update_id');
    if (type === undefined) return { queued: false, reason: 'update has no payload field' };
    if (!this.accepts(type)) {
      return { queued: false, reason: `"${type}" is not in the bot's allowed_updates` };
    }
    const update_id = this.nextId++;
    if (verbatim) this.injected.add(update_id);
    this.pending.push({ ...payload, update_id });
    this.wake('ready');
    return { queued: true, update_id };
  }

  /**
   * Serves one getUpdates call: applies `offset` and `allowed_updates`, terminates an older poll,
   * then answers at once if updates are pending, else waits up to `timeoutMs` for one. Throws the
   * 409 ApiError if a newer call terminates this one; resolves `[]` when `signal` aborts.
   */
  async poll(options: PollOptions, signal: AbortSignal): Promise<TgUpdate[]> {
    if (options.offset !== undefined) this.confirm(options.offset);
    if (options.allowedUpdates !== undefined) {
      this.allowed = options.allowedUpdates.length === 0 ? null : new Set(options.allowedUpdates);
    }
    this.wake('conflict');
    if (this.pending.length === 0 && options.timeoutMs > 0 && !signal.aborted) {
      const why = await this.wait(options.timeoutMs, signal);
      if (why === 'conflict') throw new ApiError(409, CONFLICT_DESCRIPTION);
      if (why === 'closed' || why === 'aborted') return [];
    }
    return this.pending.slice(0, options.limit);
  }

  /** True for an update a test queued verbatim through the control API. */
  isInjected(updateId: number): boolean {
    return this.injected.has(updateId);
  }

  /** True while a getUpdates call is waiting. */
  get polling(): boolean {
    return this.waiter !== null;
  }

  /** Updates not yet confirmed by an offset. */
  get pendingUpdates(): readonly TgUpdate[] {
    return this.pending;
  }

  /** The bot's current `allowed_updates` (null: Telegram's default set). */
  get allowedUpdates(): string[] | null {
    return this.allowed === null ? null : [...this.allowed];
  }

  /** Drops every pending update (deleteWebhook with drop_pending_updates, or a reset). */
  dropPending(): void {
    this.pending = [];
    this.injected.clear();
  }

  /** The queue's next id and unconfirmed updates (the emulator's state file). */
  toSnapshot(): QueueSnapshot {
    return { nextId: this.nextId, pending: this.pending };
  }

  /** Takes a saved queue back: ids continue from the saved next id (never lower than this queue's). */
  restore(snapshot: QueueSnapshot): void {
    this.nextId = Math.max(this.nextId, snapshot.nextId);
    this.pending = [...snapshot.pending];
  }

  /** Forgets pending updates and the allowed_updates setting; ids keep growing. */
  clear(): void {
    this.pending = [];
    this.injected.clear();
    this.allowed = null;
  }

  /** Ends a waiting poll (answered `[]`); used when the server stops. */
  close(): void {
    this.wake('closed');
  }

  private accepts(type: string): boolean {
    return this.allowed === null ? !OPT_IN_TYPES.has(type) : this.allowed.has(type);
  }

  /** Positive offset: drop ids below it. Negative: keep only the last -offset updates. */
  private confirm(offset: number): void {
    if (offset < 0) this.pending = this.pending.slice(offset);
    else this.pending = this.pending.filter((u) => u.update_id >= offset);
    const kept = new Set(this.pending.map((u) => u.update_id));
    for (const id of this.injected) if (!kept.has(id)) this.injected.delete(id);
  }

  private wake(why: Wake): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.(why);
  }

  private wait(timeoutMs: number, signal: AbortSignal): Promise<Wake> {
    return new Promise<Wake>((resolve) => {
      const finish = (why: Wake): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (this.waiter === finish) this.waiter = null;
        resolve(why);
      };
      const onAbort = (): void => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiter = finish;
    });
  }
}
