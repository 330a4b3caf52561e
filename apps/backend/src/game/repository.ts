import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import type { FinishReason, GameVariant } from './game.table.js';
import type { RuleState } from './rules.js';

type Db = Kysely<DB> | Transaction<DB>;

/** One seat with its account's name and lifecycle (null account = the robot). */
export interface SeatRecord {
  seat: number;
  accountId: bigint | null;
  displayName: string;
  deleted: boolean;
  score: number;
  hintsUsed: number;
}

/** A game as stored, with both seats and the words played in order. */
export interface GameRecord extends RuleState {
  id: bigint;
  variant: GameVariant;
  moves: number;
  winner: number | null;
  finishReason: FinishReason | null;
  createdAt: Date;
  seats: SeatRecord[];
  words: string[];
}

/**
 * Reads a game with its seats and words; undefined when there is no such game. Inside a
 * transaction `lock` takes the game row FOR UPDATE first, so moves, hints and resignations of
 * one game serialise.
 */
export async function loadGame(db: Db, gameId: bigint, lock = false): Promise<GameRecord | undefined> {
  let query = db
    .selectFrom('games')
    .select([
      'id',
      'variant',
      'vs_ai',
      'no_repeat_words',
      'status',
      'turn',
      'last_word',
      'moves',
      'winner',
      'finish_reason',
      'last_robot_move_at',
      'created_at',
    ])
    .where('id', '=', gameId);
  if (lock) query = query.forUpdate();
  const game = await query.executeTakeFirst();
  if (!game) return undefined;
  const [seats, words] = await Promise.all([
    db
      .selectFrom('game_seats as s')
      .leftJoin('accounts as a', 'a.id', 's.account_id')
      .select(['s.seat', 's.account_id', 's.score', 's.hints_used', 'a.display_name', 'a.status'])
      .where('s.game_id', '=', gameId)
      .orderBy('s.seat')
      .execute(),
    db.selectFrom('game_moves').select('word').where('game_id', '=', gameId).orderBy('move_no').execute(),
  ]);
  return {
    id: game.id,
    variant: game.variant,
    vsAi: game.vs_ai,
    noRepeatWords: game.no_repeat_words,
    status: game.status,
    turn: game.turn,
    lastWord: game.last_word,
    moves: game.moves,
    winner: game.winner,
    finishReason: game.finish_reason,
    lastRobotMoveAt: game.last_robot_move_at,
    createdAt: game.created_at,
    seats: seats.map((s) => ({
      seat: s.seat,
      accountId: s.account_id,
      displayName: s.account_id === null ? 'Robot' : (s.display_name ?? ''),
      deleted: s.status === 'deleted',
      score: s.score,
      hintsUsed: s.hints_used,
    })),
    words: words.map((w) => w.word),
  };
}

/** The seat an account holds in a game; undefined when it is not seated there. */
export function seatOf(game: GameRecord, accountId: bigint): number | undefined {
  return game.seats.find((s) => s.accountId === accountId)?.seat;
}
