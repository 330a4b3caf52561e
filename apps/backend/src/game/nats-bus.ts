import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from '@wordgame/logging';
import { MessageSeal, SEAL_REJECTIONS, sealKey } from '@wordgame/service-kit';
import { Counter, type Registry } from 'prom-client';
import type { GameBus, GameBusEvent, GameListener } from './events.js';

/**
 * `backend_nats_rejected_total{reason}`: why a game event from NATS was dropped: a seal rejection
 * (malformed, oversize, version, bad_mac, stale, future, replay), or `undecodable` (a verified
 * body that is not an event).
 */
export const GAME_EVENT_REJECTIONS = [...SEAL_REJECTIONS, 'undecodable'] as const;
export type GameEventRejection = (typeof GAME_EVENT_REJECTIONS)[number];

/** Registers the counter of dropped game events, each reason pre-created at zero. */
export function createGameEventRejections(registry: Registry): Counter<'reason'> {
  const rejected = new Counter({
    name: 'backend_nats_rejected_total',
    help: 'Game events from NATS dropped for a missing, wrong, stale or replayed seal (no watcher saw them).',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of GAME_EVENT_REJECTIONS) rejected.inc({ reason }, 0);
  return rejected;
}

/**
 * The seal of game events, keyed from BACKEND_SERVICE_TOKEN, the secret every backend (and no NATS
 * user as such) holds, on the backend's clock.
 */
export function gameEventSeal(serviceToken: string, now: () => number): MessageSeal {
  return new MessageSeal({ key: sealKey(serviceToken, 'game-events'), now });
}

export interface NatsGameBusOptions {
  /** NATS_SUBJECT_PREFIX. */
  prefix: string;
  seal: MessageSeal;
  /** From createGameEventRejections. */
  rejected: Counter<'reason'>;
  logger: Logger;
}

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
 *
 * Arriving on a game's subject proves nothing: every event is sealed (gameEventSeal) over its
 * subject and body, and a replica hands a watcher only an event whose seal verifies, is fresh and
 * was not seen before; anything else is dropped, counted and logged without its body.
 */
export class NatsGameBus implements GameBus {
  private readonly games = new Map<string, { listeners: Set<GameListener>; sub: Subscription }>();
  private readonly prefix: string;
  private readonly logger: Logger;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: NatsGameBusOptions,
  ) {
    this.prefix = options.prefix;
    this.logger = options.logger;
  }

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
          const opened = this.options.seal.open(msg.subject, msg.data);
          if (!opened.ok) return this.rejected(opened.reason, key);
          let event: GameBusEvent;
          try {
            event = decodeEvent(opened.payload);
          } catch {
            return this.rejected('undecodable', key);
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
      const subject = gameSubject(this.prefix, gameId);
      this.nc.publish(subject, this.options.seal.seal(subject, encodeEvent(event)).bytes);
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

  /** Drops an event that proves nothing: counted and logged, never its body. */
  private rejected(reason: GameEventRejection, gameId: string): void {
    this.options.rejected.inc({ reason });
    this.logger.warn({ reason, gameId }, 'nats game event rejected: no valid seal');
  }

  /** Games with at least one local watcher. */
  get watchedGames(): number {
    return this.games.size;
  }
}
