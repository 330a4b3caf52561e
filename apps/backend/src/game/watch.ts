import { type Caller, DomainError } from '../rpc/index.js';
import { requireLiveCaller } from './caller.js';
import { encodeGameEvent } from './codec.js';
import type { GameDeps } from './deps.js';
import type { GameBusEvent } from './events.js';
import { loadGame, seatOf } from './game.store.js';

/** A watcher further behind than this many events is ended (the client reconnects for a snapshot). */
export const WATCH_QUEUE_LIMIT = 256;

/**
 * The live events of one game for a seated caller, as encoded GameEvent bodies: first a
 * `snapshot`, then `opponent_moved` for each move of the other seat (the robot included),
 * `opponent_resigned` and `opponent_deleted`. Each event's state carries the viewer's hint
 * unlock seconds computed from the server clock when it is sent. Ends when `signal` aborts, the
 * bus closes, or the watcher falls WATCH_QUEUE_LIMIT events behind.
 */
export async function* watchGame(deps: GameDeps, caller: Caller, gameId: bigint, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  if (gameId <= 0n) throw new DomainError('invalid_game_id', 'game_id must be a positive integer');
  const queue: GameBusEvent[] = [];
  let wake: (() => void) | undefined;
  let overflow = false;
  // Subscribe before reading the snapshot so that nothing committed in between is missed.
  const unsubscribe = deps.bus.subscribe(gameId, (event) => {
    if (queue.length >= WATCH_QUEUE_LIMIT) overflow = true;
    else queue.push(event);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    // Across replicas the subscription must reach the broker before the snapshot is read.
    await deps.bus.ready();
    await requireLiveCaller(deps.db, caller.accountId);
    const game = await loadGame(deps.db, gameId);
    const seat = game === undefined ? undefined : seatOf(game, caller.accountId);
    if (game === undefined || seat === undefined) throw new DomainError('unknown_game', 'no such game');
    yield encodeGameEvent('snapshot', game, seat, deps.now());
    let seen = game.moves;
    while (!signal.aborted && !overflow) {
      const event = queue.shift();
      if (event === undefined) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      if (event.kind === 'closed') return;
      if (event.kind === 'moved') {
        if (event.move.moveNo <= seen) continue;
        seen = event.move.moveNo;
        if (event.move.seat !== seat) yield encodeGameEvent('opponent_moved', event.game, seat, deps.now(), event.move);
      } else if (event.seat !== seat) {
        yield encodeGameEvent(event.kind === 'resigned' ? 'opponent_resigned' : 'opponent_deleted', event.game, seat, deps.now());
      }
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', onAbort);
  }
}
