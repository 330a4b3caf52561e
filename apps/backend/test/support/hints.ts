import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../../src/db/schema.js';
import type { GameDeps } from '../../src/game/deps.js';
import { GameEventBus } from '../../src/game/events.js';
import { createGame } from '../../src/game/play.js';
import type { Caller } from '../../src/rpc/caller.js';
import { newAccount } from './wallet.js';

/** Game deps with no daily allowance, so every human-game hint comes from the wallet. */
export function walletHintDeps(db: Kysely<DB>, logger: Logger): GameDeps {
  return {
    db,
    logger,
    now: () => new Date(),
    bus: new GameEventBus(),
    dailyHints: 0,
    chatGate: { send: () => Promise.resolve({ status: 'no_bot' }) },
  };
}

/** A human game against a fresh opponent with `caller` to move (a hint keeps the turn, so it can ask again and again). */
export async function gameToHintIn(deps: GameDeps, caller: Caller): Promise<bigint> {
  const opponent = await newAccount(deps.db);
  const game = await createGame(deps, caller, { variant: 'classic', vsAi: false, opponentAccountId: opponent });
  return game.id;
}
