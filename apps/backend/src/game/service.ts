import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, fb } from '@wordgame/contracts';
import { callerFrom, writerFrom, DomainError } from '../rpc/index.js';
import { requireLiveCaller } from './caller.js';
import { encodeGameView, encodeHintGrant } from './codec.js';
import type { GameDeps } from './deps.js';
import { useHint } from './hint.js';
import { createGame, playMove, resign } from './play.js';
import { loadGame, seatOf } from './game.store.js';
import { watchGame } from './watch.js';

function gameIdOf(body: Uint8Array): bigint {
  return decodeTable(
    body,
    (bb) => fb.GameQuery.getRootAsGameQuery(bb),
    (t) => t.gameId(),
  );
}

/**
 * backend.v1.GameService: the word game for the caller named by the X-Account-Id / X-Platform
 * headers. GetGame and WatchGame read; CreateGame, PlayMove, UseHint and Resign write, so each
 * needs a trusted session (writerFrom: `untrusted_session` otherwise), checked here as well as at
 * the gateway.
 */
export function gameService(deps: GameDeps): ServiceImpl<typeof backendApi.GameService> {
  return {
    async createGame(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const input = decodeTable(
        req.body,
        (bb) => fb.GameCreate.getRootAsGameCreate(bb),
        (t) => ({
          variant: t.variant(),
          vsAi: t.vsAi(),
          opponentAccountId: t.opponentAccountId(),
        }),
      );
      const game = await createGame(deps, caller, input);
      deps.logger.info(
        { gameId: String(game.id), accountId: String(caller.accountId), vsAi: game.vsAi, variant: game.variant },
        'game created',
      );
      return { body: encodeGameView(game, 0, deps.now()) };
    },
    async getGame(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      const gameId = gameIdOf(req.body);
      if (gameId <= 0n) throw new DomainError('invalid_game_id', 'game_id must be a positive integer');
      await requireLiveCaller(deps.db, caller.accountId);
      const game = await loadGame(deps.db, gameId);
      const seat = game === undefined ? undefined : seatOf(game, caller.accountId);
      if (game === undefined || seat === undefined) throw new DomainError('unknown_game', 'no such game');
      return { body: encodeGameView(game, seat, deps.now()) };
    },
    async playMove(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const move = decodeTable(
        req.body,
        (bb) => fb.MovePlay.getRootAsMovePlay(bb),
        (t) => ({ gameId: t.gameId(), word: t.word() }),
      );
      const { game, seat } = await playMove(deps, caller, move.gameId, move.word);
      return { body: encodeGameView(game, seat, deps.now()) };
    },
    async useHint(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const gameId = decodeTable(
        req.body,
        (bb) => fb.HintAsk.getRootAsHintAsk(bb),
        (t) => t.gameId(),
      );
      const { game, seat, hint } = await useHint(deps, caller, gameId);
      return { body: encodeHintGrant(game, seat, hint, deps.now()) };
    },
    async resign(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const { game, seat } = await resign(deps, caller, gameIdOf(req.body));
      return { body: encodeGameView(game, seat, deps.now()) };
    },
    async *watchGame(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      for await (const body of watchGame(deps, caller, gameIdOf(req.body), ctx.signal)) yield { body };
    },
  };
}
