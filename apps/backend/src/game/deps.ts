import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import type { ChatGate } from '../botcommands/index.js';
import type { Clock } from '../support/index.js';
import type { GameBus } from './events.js';

/** What the game and social services need. */
export interface GameDeps {
  db: Kysely<DB>;
  logger: Logger;
  /** The server clock (tests drive it). */
  now: Clock;
  bus: GameBus;
  /** Free hints per account per UTC day in human games (GAME_DAILY_HINTS). */
  dailyHints: number;
  /** Where a deleted account's chat write permission is revoked (ChatGateCommand allow=false). */
  chatGate: ChatGate;
}
