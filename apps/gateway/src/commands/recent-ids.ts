import { performance } from 'node:perf_hooks';

/**
 * How many command ids a hub remembers. Memory stays under a few MiB (an id is a 36-character
 * uuid); the bound holds as long as a gateway writes fewer than this many commands per
 * RECENT_COMMAND_TTL_MS (about 218/s), far above the bot's own rate. Past it the oldest id is
 * forgotten first.
 */
export const RECENT_COMMAND_IDS = 65_536;
/**
 * How long (ms) a written command id is remembered: longer than any command lives (the internal
 * service's 120 s cap on `timeout_ms`, plus the relay's margins) and than a sealed NATS message
 * stays fresh (30 s), so any second copy of a command arrives while its id is still known.
 */
export const RECENT_COMMAND_TTL_MS = 300_000;

/** A bounded, expiring set of ids: the hub's memory of the command ids it already wrote. */
export class RecentIds {
  /** Id → when it is forgotten (monotonic ms), oldest first. */
  private readonly ids = new Map<string, number>();

  constructor(
    private readonly capacity = RECENT_COMMAND_IDS,
    private readonly ttlMs = RECENT_COMMAND_TTL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Remembers `id`; false when it is remembered already (a second copy). */
  add(id: string): boolean {
    const now = this.now();
    const known = this.ids.get(id);
    if (known !== undefined && known > now) return false;
    this.ids.delete(id);
    for (const [old, until] of this.ids) {
      if (until > now && this.ids.size < this.capacity) break;
      this.ids.delete(old);
    }
    this.ids.set(id, now + this.ttlMs);
    return true;
  }

  /** Ids remembered now (tests). */
  get size(): number {
    return this.ids.size;
  }
}
