/** What the limiter makes of one input: let it through, say "slow down" (once per window), or stay silent. */
export type RateVerdict = 'pass' | 'warn' | 'silent';

interface Window {
  startedAt: number;
  count: number;
  warned: boolean;
}

/**
 * A per-user fixed-window limit on chat inputs (commands, button presses, a case's text): `limit`
 * per `windowMs`. The first input over the limit in a window is `warn` (the bot says "slow down"),
 * every further one `silent`, so a user spamming commands costs one short answer per window.
 * Finished windows are forgotten once many users are tracked.
 */
export class UserRateLimit {
  private readonly windows = new Map<number, Window>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(userId: number): RateVerdict {
    const now = this.now();
    let window = this.windows.get(userId);
    if (window === undefined || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, count: 0, warned: false };
      this.windows.set(userId, window);
      if (this.windows.size > 10_000) this.forgetBefore(now);
    }
    window.count += 1;
    if (window.count <= this.limit) return 'pass';
    if (window.warned) return 'silent';
    window.warned = true;
    return 'warn';
  }

  private forgetBefore(now: number): void {
    for (const [userId, window] of this.windows) if (now - window.startedAt >= this.windowMs) this.windows.delete(userId);
  }
}
