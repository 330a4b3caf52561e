import type { ColumnType, Generated } from 'kysely';

/** Word game variants; `no_repeat` forbids a word already played in the game. */
export type GameVariant = 'classic' | 'no_repeat';
export type GameStatus = 'active' | 'finished';
export type FinishReason = 'moves_exhausted' | 'resigned' | 'robot_stuck' | 'opponent_deleted';

export interface GamesTable {
  id: Generated<bigint>;
  variant: GameVariant;
  vs_ai: boolean;
  /** Set from the variant at creation; never changes. */
  no_repeat_words: boolean;
  status: ColumnType<GameStatus, GameStatus | undefined, GameStatus>;
  /** Seat to move; null once finished. */
  turn: number | null;
  last_word: string | null;
  moves: ColumnType<number, number | undefined, number>;
  winner: number | null;
  finish_reason: FinishReason | null;
  /** When the robot last moved (vs_ai); the hint idle gate counts from here. */
  last_robot_move_at: Date | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: ColumnType<Date, Date, Date>;
}

export interface GameSeatsTable {
  game_id: bigint;
  seat: number;
  /** null = the robot. */
  account_id: bigint | null;
  score: ColumnType<number, number | undefined, number>;
  hints_used: ColumnType<number, number | undefined, number>;
}

export interface GameMovesTable {
  game_id: bigint;
  move_no: number;
  seat: number;
  word: string;
  points: number;
  by_robot: ColumnType<boolean, boolean | undefined, never>;
  created_at: ColumnType<Date, Date, never>;
}

/** Daily free hints used per account and UTC day. */
export interface HintAllowancesTable {
  account_id: bigint;
  day: ColumnType<string, string, never>;
  used: number;
}

/** The player's hint statistic (hints used in human games). */
export interface PlayerStatsTable {
  account_id: bigint;
  hints_used: ColumnType<bigint, bigint | undefined, bigint>;
}

declare module '../db/index.js' {
  /** The game tables: games, seats, moves, daily hint allowances and the hint statistic. */
  interface DB {
    games: GamesTable;
    game_seats: GameSeatsTable;
    game_moves: GameMovesTable;
    hint_allowances: HintAllowancesTable;
    player_stats: PlayerStatsTable;
  }
}
