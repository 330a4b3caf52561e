import { sleep } from '../support/index.js';

/**
 * Spaces the bot's messages to one chat at least `gapMs` apart (the platform allows about one
 * message per second per chat and answers more with 429): each `turn(chat)` resolves at the chat's
 * next free slot and books the one after it. Chats are independent; slots long past are forgotten.
 */
export class ChatPacer {
  private readonly next = new Map<string, number>();

  constructor(
    private readonly gapMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Waits for the chat's next slot (at once when it is free); `signal` ends the wait early. */
  async turn(chatId: number | string, signal?: AbortSignal): Promise<void> {
    const now = this.now();
    const key = String(chatId);
    const slot = Math.max(now, this.next.get(key) ?? 0);
    this.next.set(key, slot + this.gapMs);
    if (this.next.size > 10_000) this.forgetBefore(now);
    if (slot > now) await sleep(slot - now, signal);
  }

  /**
   * Books the chat's slot for a message sent now without waiting (one whose sender cannot wait: a
   * gateway command under its Ack deadline): the chat's next turn comes at least `gapMs` later.
   */
  book(chatId: number | string): void {
    const now = this.now();
    const key = String(chatId);
    this.next.set(key, Math.max(this.next.get(key) ?? 0, now + this.gapMs));
    if (this.next.size > 10_000) this.forgetBefore(now);
  }

  private forgetBefore(now: number): void {
    for (const [key, at] of this.next) if (at <= now) this.next.delete(key);
  }
}
