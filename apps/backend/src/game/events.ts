import type { MoveRecord } from './codec.js';
import type { GameRecord } from './game.store.js';

/** What happened to a game, with the game as it stood right after (committed). */
export type GameBusEvent =
  | { kind: 'moved'; game: GameRecord; move: MoveRecord }
  | { kind: 'resigned'; game: GameRecord; seat: number }
  | { kind: 'deleted'; game: GameRecord; seat: number }
  /** The bus is closing (backend stop): every watch ends. */
  | { kind: 'closed' };

/** A receiver of one game's events. */
export type GameListener = (event: GameBusEvent) => void;
type Listener = GameListener;

/**
 * Publish/subscribe of committed game events, keyed by game id: in-process (GameEventBus, one
 * backend) or across replicas (game/nats-bus.ts over NATS).
 */
export interface GameBus {
  /** Registers a listener for one game; returns the unsubscribe function. */
  subscribe(gameId: bigint, listener: GameListener): () => void;
  /** Resolves once every subscription made so far receives what is published after it. */
  ready(): Promise<void>;
  /** Delivers a committed event to every listener of the game. */
  publish(gameId: bigint, event: GameBusEvent): void;
  /** Tells every local listener the bus is closing. */
  close(): void;
}

/**
 * In-process publish/subscribe of committed game events, keyed by game id. One backend process
 * sees only the events of moves made through itself; several replicas share NATS instead
 * (NATS_URL, game/nats-bus.ts).
 */
export class GameEventBus implements GameBus {
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

  /** In-process subscriptions take effect at once. */
  ready(): Promise<void> {
    return Promise.resolve();
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
