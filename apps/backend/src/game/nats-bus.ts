import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from '@wordgame/logging';
import type { GameBus, GameBusEvent, GameListener } from './events.js';

/** The subject of one game's events. */
export function gameSubject(prefix: string, gameId: bigint): string {
  return `${prefix}.game.${gameId.toString()}.events`;
}

/** JSON with bigints and Dates kept exact: `{"$b":"…"}` and `{"$d":"…"}`. */
export function encodeEvent(event: GameBusEvent): Uint8Array {
  const json = JSON.stringify(event, function (this: Record<string, unknown>, key: string, value: unknown) {
    const raw = this[key];
    if (raw instanceof Date) return { $d: raw.toISOString() };
    if (typeof value === 'bigint') return { $b: value.toString() };
    return value;
  });
  return new TextEncoder().encode(json);
}

/** The inverse of encodeEvent. */
export function decodeEvent(bytes: Uint8Array): GameBusEvent {
  return JSON.parse(new TextDecoder().decode(bytes), (_key, value: unknown) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && typeof (value as { $b?: unknown }).$b === 'string') return BigInt((value as { $b: string }).$b);
      if (keys.length === 1 && typeof (value as { $d?: unknown }).$d === 'string') return new Date((value as { $d: string }).$d);
    }
    return value;
  }) as GameBusEvent;
}

/**
 * Game events across backend replicas over NATS (core publish/subscribe, no persistence): a
 * committed event is published on its game's subject and every replica with a watcher of that game
 * holds one subscription for it, so a watcher sees moves served by any replica (its own included:
 * delivery to local watchers also goes through NATS, keeping one order per publisher). An event
 * published while the broker is unreachable is buffered by the client; a watcher that misses one
 * still gets the next move's full state, and reconnecting gives a fresh snapshot.
 */
export class NatsGameBus implements GameBus {
  private readonly games = new Map<string, { listeners: Set<GameListener>; sub: Subscription }>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  subscribe(gameId: bigint, listener: GameListener): () => void {
    const key = gameId.toString();
    let entry = this.games.get(key);
    if (!entry) {
      const listeners = new Set<GameListener>();
      const sub = this.nc.subscribe(gameSubject(this.prefix, gameId), {
        callback: (err, msg) => {
          if (err) {
            this.logger.error({ err, gameId: key }, 'game event subscription failed');
            return;
          }
          let event: GameBusEvent;
          try {
            event = decodeEvent(msg.data);
          } catch (e: unknown) {
            this.logger.warn({ err: e, gameId: key }, 'undecodable game event dropped');
            return;
          }
          for (const l of [...listeners]) l(event);
        },
      });
      entry = { listeners, sub };
      this.games.set(key, entry);
    }
    entry.listeners.add(listener);
    const current = entry;
    return () => {
      current.listeners.delete(listener);
      if (current.listeners.size === 0 && this.games.get(key) === current) {
        this.games.delete(key);
        current.sub.unsubscribe();
      }
    };
  }

  /** The server has every subscription sent so far once a flush (PING/PONG) returns. */
  ready(): Promise<void> {
    return this.nc.flush();
  }

  publish(gameId: bigint, event: GameBusEvent): void {
    try {
      this.nc.publish(gameSubject(this.prefix, gameId), encodeEvent(event));
    } catch (err: unknown) {
      // The move is committed either way; a watcher that missed it catches up on the next one.
      this.logger.warn({ err, gameId: gameId.toString() }, 'game event not published');
    }
  }

  close(): void {
    for (const { listeners, sub } of [...this.games.values()]) {
      sub.unsubscribe();
      for (const l of [...listeners]) l({ kind: 'closed' });
    }
    this.games.clear();
  }

  /** Games with at least one local watcher. */
  get watchedGames(): number {
    return this.games.size;
  }
}
