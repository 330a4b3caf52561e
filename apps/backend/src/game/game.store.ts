import { sql, type Kysely, type Transaction } from 'kysely';
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

/** The lifecycle status of an account; undefined when there is no such account. */
export async function accountStatus(db: Db, accountId: bigint) {
  const row = await db.selectFrom('accounts').select('status').where('id', '=', accountId).executeTakeFirst();
  return row?.status;
}

/** Whether either account blocks the other. */
export async function isBlockedEitherWay(db: Db, a: bigint, b: bigint): Promise<boolean> {
  const row = await db
    .selectFrom('blocks')
    .select('blocker_id')
    .where((eb) =>
      eb.or([eb.and([eb('blocker_id', '=', a), eb('blocked_id', '=', b)]), eb.and([eb('blocker_id', '=', b), eb('blocked_id', '=', a)])]),
    )
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts a new active game whose seat 0 moves first; returns its id. */
export async function insertGame(
  trx: Transaction<DB>,
  values: { variant: GameVariant; vsAi: boolean; noRepeatWords: boolean; now: Date },
): Promise<bigint> {
  const { id } = await trx
    .insertInto('games')
    .values({
      variant: values.variant,
      vs_ai: values.vsAi,
      no_repeat_words: values.noRepeatWords,
      turn: 0,
      created_at: values.now,
      updated_at: values.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** Inserts a game's two seats in one statement (null account = the robot). */
export async function insertSeats(trx: Transaction<DB>, gameId: bigint, seat0: bigint, seat1: bigint | null): Promise<void> {
  await trx
    .insertInto('game_seats')
    .values([
      { game_id: gameId, seat: 0, account_id: seat0 },
      { game_id: gameId, seat: 1, account_id: seat1 },
    ])
    .execute();
}

/** Appends one move to a game and adds its points to the mover's seat score. */
export async function recordMove(
  trx: Transaction<DB>,
  gameId: bigint,
  move: { moveNo: number; seat: number; word: string; points: number; byRobot: boolean; at: Date },
): Promise<void> {
  await trx
    .insertInto('game_moves')
    .values({
      game_id: gameId,
      move_no: move.moveNo,
      seat: move.seat,
      word: move.word,
      points: move.points,
      by_robot: move.byRobot,
      created_at: move.at,
    })
    .execute();
  await trx
    .updateTable('game_seats')
    .set((eb) => ({ score: eb('score', '+', move.points) }))
    .where('game_id', '=', gameId)
    .where('seat', '=', move.seat)
    .execute();
}

/** Writes a game's mutable state (status, turn, last word, moves, result, robot clock) as `game` holds it. */
export async function saveGameState(trx: Transaction<DB>, game: GameRecord, now: Date): Promise<void> {
  await trx
    .updateTable('games')
    .set({
      status: game.status,
      turn: game.turn,
      last_word: game.lastWord,
      moves: game.moves,
      winner: game.winner,
      finish_reason: game.finishReason,
      last_robot_move_at: game.lastRobotMoveAt,
      updated_at: now,
    })
    .where('id', '=', game.id)
    .execute();
}

/** The seats an account holds in active games, by game id; seat and game rows locked FOR UPDATE. */
export async function lockActiveSeatsOf(trx: Transaction<DB>, accountId: bigint): Promise<Array<{ gameId: bigint; seat: number }>> {
  const rows = await trx
    .selectFrom('game_seats as s')
    .innerJoin('games as g', 'g.id', 's.game_id')
    .select(['s.game_id', 's.seat'])
    .where('s.account_id', '=', accountId)
    .where('g.status', '=', 'active')
    .orderBy('s.game_id')
    .forUpdate()
    .execute();
  return rows.map((r) => ({ gameId: r.game_id, seat: r.seat }));
}

/** Finishes a game whose player was deleted: `winner` wins with reason `opponent_deleted`. */
export async function finishForfeitedGame(trx: Transaction<DB>, gameId: bigint, winner: number, now: Date): Promise<void> {
  await trx
    .updateTable('games')
    .set({ status: 'finished', turn: null, winner, finish_reason: 'opponent_deleted', updated_at: now })
    .where('id', '=', gameId)
    .execute();
}

/**
 * Uses one of the account's free hints of `day` (a UTC date) when fewer than `perDay` are used;
 * answers the day's used count after it, or undefined when the allowance was already spent.
 */
export async function takeHintAllowance(trx: Transaction<DB>, accountId: bigint, day: string, perDay: number): Promise<number | undefined> {
  const row = await trx
    .insertInto('hint_allowances')
    .values({ account_id: accountId, day, used: 1 })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'day'])
        .doUpdateSet({ used: sql<number>`hint_allowances.used + 1` })
        .where('hint_allowances.used', '<', perDay),
    )
    .returning('used')
    .executeTakeFirst();
  return row?.used;
}

/** Counts one hint on the seat's game tally and on the player's hint statistic. */
export async function countHint(trx: Transaction<DB>, accountId: bigint, gameId: bigint, seat: number): Promise<void> {
  await trx
    .updateTable('game_seats')
    .set((eb) => ({ hints_used: eb('hints_used', '+', 1) }))
    .where('game_id', '=', gameId)
    .where('seat', '=', seat)
    .execute();
  await trx
    .insertInto('player_stats')
    .values({ account_id: accountId, hints_used: 1n })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ hints_used: sql<bigint>`player_stats.hints_used + 1` }))
    .execute();
}
