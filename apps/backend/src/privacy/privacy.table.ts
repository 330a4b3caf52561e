import type { ColumnType, Generated } from 'kysely';

/** A forget the bot has not yet acked (0130): deleted when it has. */
export interface BotForgetsTable {
  id: Generated<bigint>;
  /** The platform (Telegram) user id the bot keeps entries under. */
  user_id: bigint;
  created_at: ColumnType<Date, Date | undefined, never>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<Date, Date | undefined, Date>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
}

declare module '../db/index.js' {
  /** The privacy feature's table: the bot's pending forgets. */
  interface DB {
    bot_forgets: BotForgetsTable;
  }
}
