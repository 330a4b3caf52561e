import type { MoveRecord } from './codec.js';
import type { GameRecord } from './repository.js';

/** What happened to a game, with the game as it stood right after (committed). */
export type GameBusEvent =
  | { kind: 'moved'; game: GameRecord; move: MoveRecord }
  | { kind: 'resigned'; game: GameRecord; seat: number }
  | { kind: 'deleted'; game: GameRecord; seat: number }
  /** The bus is closing (backend stop): every watch ends. */
  | { kind: 'closed' };

type Listener = (event: GameBusEvent) => void;

/**
 * In-process publish/subscribe of committed game events, keyed by game id. One backend process
 * sees only the events of moves made through itself: with several backend replicas a watcher
 * misses moves served by another replica, so the backend runs as one replica while the live
 * stream is fed from here (documented limit).
 */
export class GameEventBus {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** Registers a listener for one game; returns the unsubscribe function. */
  subscribe(gameId: bigint, listener: Listener): () => void {
    const key = gameId.toString();
    let set = this.listeners.get(key);
    if (!set) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(key);
      current?.delete(listener);
      if (current?.size === 0) this.listeners.delete(key);
    };
  }

  /** Delivers a committed event to the game's current listeners, synchronously. */
  publish(gameId: bigint, event: GameBusEvent): void {
    for (const listener of [...(this.listeners.get(gameId.toString()) ?? [])]) listener(event);
  }

  /** Tells every listener the bus is closing. */
  close(): void {
    for (const set of [...this.listeners.values()]) for (const listener of [...set]) listener({ kind: 'closed' });
    this.listeners.clear();
  }

  /** Games with at least one listener (observability and tests). */
  get watchedGames(): number {
    return this.listeners.size;
  }
}
