import { sql, type Kysely } from 'kysely';

/**
 * The word game and the social layer, expand only: games with their two seats (seat 1 has no
 * account for the robot) and append-only moves, the daily hint allowance per account and UTC
 * day, the per-account hint statistic, friendships (one row per ordered pair: the asker first)
 * and blocks. A wallet hint is a ledger `spend` row with hints_delta -1 (no new kind needed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('games')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('variant', 'text', (c) => c.notNull().check(sql`variant in ('classic', 'no_repeat')`))
    .addColumn('vs_ai', 'boolean', (c) => c.notNull())
    .addColumn('no_repeat_words', 'boolean', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active', 'finished')`),
    )
    .addColumn('turn', 'smallint', (c) => c.check(sql`turn in (0, 1)`))
    .addColumn('last_word', 'text')
    .addColumn('moves', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`moves >= 0`),
    )
    .addColumn('winner', 'smallint', (c) => c.check(sql`winner in (0, 1)`))
    .addColumn('finish_reason', 'text')
    .addColumn('last_robot_move_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addCheckConstraint('games_turn_while_active', sql`(status = 'active') = (turn is not null)`)
    .execute();

  await db.schema
    .createTable('game_seats')
    .addColumn('game_id', 'bigint', (c) => c.notNull().references('games.id'))
    .addColumn('seat', 'smallint', (c) => c.notNull().check(sql`seat in (0, 1)`))
    .addColumn('account_id', 'bigint', (c) => c.references('accounts.id'))
    .addColumn('score', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('hints_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('game_seats_pkey', ['game_id', 'seat'])
    .execute();
  await db.schema.createIndex('game_seats_account_idx').on('game_seats').columns(['account_id', 'game_id']).execute();

  await db.schema
    .createTable('game_moves')
    .addColumn('game_id', 'bigint', (c) => c.notNull().references('games.id'))
    .addColumn('move_no', 'integer', (c) => c.notNull().check(sql`move_no > 0`))
    .addColumn('seat', 'smallint', (c) => c.notNull())
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('points', 'integer', (c) => c.notNull())
    .addColumn('by_robot', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('game_moves_pkey', ['game_id', 'move_no'])
    .execute();

  await db.schema
    .createTable('hint_allowances')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull().check(sql`used > 0`))
    .addPrimaryKeyConstraint('hint_allowances_pkey', ['account_id', 'day'])
    .execute();

  await db.schema
    .createTable('player_stats')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('hints_used', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`hints_used >= 0`),
    )
    .execute();

  await db.schema
    .createTable('friendships')
    .addColumn('requester_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('addressee_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'accepted')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addPrimaryKeyConstraint('friendships_pkey', ['requester_id', 'addressee_id'])
    .addCheckConstraint('friendships_not_self', sql`requester_id <> addressee_id`)
    .execute();
  await sql`create unique index friendships_pair_key on friendships (least(requester_id, addressee_id), greatest(requester_id, addressee_id))`.execute(
    db,
  );

  await db.schema
    .createTable('blocks')
    .addColumn('blocker_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('blocked_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('blocks_pkey', ['blocker_id', 'blocked_id'])
    .addCheckConstraint('blocks_not_self', sql`blocker_id <> blocked_id`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('blocks').execute();
  await db.schema.dropTable('friendships').execute();
  await db.schema.dropTable('player_stats').execute();
  await db.schema.dropTable('hint_allowances').execute();
  await db.schema.dropTable('game_moves').execute();
  await db.schema.dropTable('game_seats').execute();
  await db.schema.dropTable('games').execute();
}
