/**
 * The game feature's one public entry: the GameService, the live-event buses (in-process and NATS),
 * and the pieces social builds on (the caller's live account, target checks, forfeits on deletion).
 * Other features import from here only.
 */
export { requireLiveCaller } from './caller.js';
export type { GameDeps } from './deps.js';
export { type GameBus, GameEventBus } from './events.js';
export { createGameEventRejections, gameEventSeal, NatsGameBus } from './nats-bus.js';
export { forfeitGamesOf } from './play.js';
export { isBlockedEitherWay, loadGame } from './game.store.js';
export { gameService } from './service.js';
export { requireTarget } from './targets.js';
export type { GameMovesTable, GameSeatsTable, GamesTable, HintAllowancesTable, PlayerStatsTable } from './game.table.js';
