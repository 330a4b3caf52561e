import type { Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import { type Caller, DomainError } from '../rpc/index.js';
import { requireLiveCaller } from './caller.js';
import type { MoveRecord } from './codec.js';
import type { GameDeps } from './deps.js';
import { chooseWord } from './dictionary.js';
import {
  finishForfeitedGame,
  insertGame,
  insertSeats,
  isBlockedEitherWay,
  loadGame,
  lockActiveSeatsOf,
  recordMove,
  saveGameState,
  seatOf,
  type GameRecord,
} from './game.store.js';
import { checkWord, isVariant, MAX_MOVES, normaliseWord, pointsOf, requiredLetter, VARIANTS, winnerByScore } from './rules.js';
import { requireTarget } from './targets.js';

/** A new game's settings as the caller asks for them. */
export interface NewGame {
  variant: string | null;
  vsAi: boolean;
  opponentAccountId: bigint;
}

/**
 * Creates a game: the caller takes seat 0 (and moves first), seat 1 is the robot (vs_ai) or the
 * invited account, which must exist, not be deleted and not be blocked either way.
 * `no_repeat_words` is fixed from the variant here and never changes.
 */
export async function createGame(deps: GameDeps, caller: Caller, input: NewGame): Promise<GameRecord> {
  const variant = input.variant ?? '';
  if (!isVariant(variant)) throw new DomainError('invalid_variant', 'variant must be classic or no_repeat');
  if (input.vsAi !== (input.opponentAccountId === 0n)) {
    throw new DomainError(
      'invalid_opponent',
      input.vsAi ? 'a game against the robot has no opponent account' : 'invite an opponent account or play the robot',
    );
  }
  const now = deps.now();
  return deps.db.transaction().execute(async (trx) => {
    await requireLiveCaller(trx, caller.accountId);
    if (!input.vsAi) {
      if (input.opponentAccountId === caller.accountId) throw new DomainError('invalid_opponent', 'you cannot invite yourself');
      await requireTarget(trx, caller.accountId, input.opponentAccountId, 'invalid_opponent');
      if (await isBlockedEitherWay(trx, caller.accountId, input.opponentAccountId))
        throw new DomainError('blocked', 'a block stands between you and this player');
    }
    const id = await insertGame(trx, { variant, vsAi: input.vsAi, noRepeatWords: VARIANTS[variant].noRepeatWords, now });
    await insertSeats(trx, id, caller.accountId, input.vsAi ? null : input.opponentAccountId);
    return mustLoad(trx, id);
  });
}

async function mustLoad(trx: Transaction<DB>, id: bigint): Promise<GameRecord> {
  const game = await loadGame(trx, id);
  if (!game) throw new Error(`game ${id} vanished inside its transaction`);
  return game;
}

/** The game the caller is seated in, locked; `unknown_game` for a game the caller does not sit in. */
export async function lockSeatedGame(trx: Transaction<DB>, caller: Caller, gameId: bigint): Promise<{ game: GameRecord; seat: number }> {
  if (gameId <= 0n) throw new DomainError('invalid_game_id', 'game_id must be a positive integer');
  await requireLiveCaller(trx, caller.accountId);
  const game = await loadGame(trx, gameId, true);
  const seat = game === undefined ? undefined : seatOf(game, caller.accountId);
  if (game === undefined || seat === undefined) throw new DomainError('unknown_game', 'no such game');
  return { game, seat };
}

/** Fails unless the game is active and it is `seat`'s turn. */
export function requireTurn(game: GameRecord, seat: number): void {
  if (game.status !== 'active') throw new DomainError('game_finished', 'the game is over');
  if (game.turn !== seat) throw new DomainError('not_your_turn', 'it is not your turn');
}

/** A played move plus the committed game after the call. */
export interface MoveOutcome {
  game: GameRecord;
  seat: number;
  moves: MoveRecord[];
}

/**
 * Plays the caller's word and, in a vs_ai game that is still on, the robot's answer, in one
 * transaction under the game's row lock. The game ends after MAX_MOVES moves (higher score
 * wins) or when the robot finds no word (no_repeat variant; the human wins).
 */
export async function playMove(deps: GameDeps, caller: Caller, gameId: bigint, rawWord: string | null): Promise<MoveOutcome> {
  const word = normaliseWord(rawWord);
  const now = deps.now();
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const { game, seat } = await lockSeatedGame(trx, caller, gameId);
    requireTurn(game, seat);
    checkWord(word, game, new Set(game.words));
    const moves = [await applyMove(trx, game, seat, word, false, now)];
    if (game.vsAi && game.status === 'active') {
      const answer = chooseWord(requiredLetter(game.lastWord), new Set(game.words), game.noRepeatWords);
      if (answer === null) {
        finish(game, 0, 'robot_stuck');
      } else {
        moves.push(await applyMove(trx, game, 1, answer, true, now));
        game.lastRobotMoveAt = now;
      }
    }
    await saveGameState(trx, game, now);
    return { game: await mustLoad(trx, game.id), seat, moves };
  });
  for (const move of outcome.moves) deps.bus.publish(outcome.game.id, { kind: 'moved', game: outcome.game, move });
  deps.logger.info(
    { gameId: String(outcome.game.id), accountId: String(caller.accountId), moves: outcome.game.moves, status: outcome.game.status },
    'move played',
  );
  return outcome;
}

/** Records one move and advances the in-memory game (turn, last word, score, finish at MAX_MOVES). */
async function applyMove(
  trx: Transaction<DB>,
  game: GameRecord,
  seat: number,
  word: string,
  byRobot: boolean,
  now: Date,
): Promise<MoveRecord> {
  const move: MoveRecord = { moveNo: game.moves + 1, seat, word, points: pointsOf(word), byRobot, at: now };
  await recordMove(trx, game.id, move);
  const mover = game.seats[seat];
  if (mover) mover.score += move.points;
  game.moves = move.moveNo;
  game.lastWord = word;
  game.words.push(word);
  game.turn = seat === 0 ? 1 : 0;
  if (game.moves >= MAX_MOVES) finish(game, winnerByScore([game.seats[0]?.score ?? 0, game.seats[1]?.score ?? 0]), 'moves_exhausted');
  return move;
}

function finish(game: GameRecord, winner: number | null, reason: NonNullable<GameRecord['finishReason']>): void {
  game.status = 'finished';
  game.turn = null;
  game.winner = winner;
  game.finishReason = reason;
}

/** The caller gives up an active game (at any turn); the other seat wins. */
export async function resign(deps: GameDeps, caller: Caller, gameId: bigint): Promise<{ game: GameRecord; seat: number }> {
  const now = deps.now();
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const { game, seat } = await lockSeatedGame(trx, caller, gameId);
    if (game.status !== 'active') throw new DomainError('game_finished', 'the game is over');
    finish(game, seat === 0 ? 1 : 0, 'resigned');
    await saveGameState(trx, game, now);
    return { game: await mustLoad(trx, game.id), seat };
  });
  deps.bus.publish(outcome.game.id, { kind: 'resigned', game: outcome.game, seat: outcome.seat });
  return outcome;
}

/**
 * Ends every active game an account sits in (its account is being deleted): the other seat wins
 * with reason `opponent_deleted`. Runs in the deletion's transaction; returns the game ids.
 */
export async function forfeitGamesOf(trx: Transaction<DB>, accountId: bigint, now: Date): Promise<Array<{ gameId: bigint; seat: number }>> {
  const seats = await lockActiveSeatsOf(trx, accountId);
  for (const { gameId, seat } of seats) await finishForfeitedGame(trx, gameId, seat === 0 ? 1 : 0, now);
  return seats;
}
