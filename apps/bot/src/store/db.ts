import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Opens the bot's SQLite file (WAL, synchronous=FULL, bigint integers) and brings its schema up
 * to date in place. Every step is idempotent, so a file written by an older bot (an outbox
 * without `next_attempt_at`, `last_error` or its order index, no dead-letter table) is migrated on
 * open and a current one is left alone.
 */
export function openBotDb(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.defaultSafeIntegers(true);
  db.transaction(() => migrate(db))();
  return db;
}

function migrate(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS payment_outbox (
    charge_id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL,
    amount INTEGER NOT NULL,
    platform_user_id INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  ) STRICT`);
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('payment_outbox') as { name: string }[];
  if (!columns.some((c) => c.name === 'next_attempt_at')) {
    db.exec('ALTER TABLE payment_outbox ADD COLUMN next_attempt_at INTEGER NOT NULL DEFAULT 0');
  }
  if (!columns.some((c) => c.name === 'last_error')) {
    db.exec('ALTER TABLE payment_outbox ADD COLUMN last_error TEXT');
  }
  db.exec('CREATE INDEX IF NOT EXISTS payment_outbox_due ON payment_outbox (next_attempt_at, created_at)');
  db.exec('CREATE INDEX IF NOT EXISTS payment_outbox_order ON payment_outbox (order_id)');
  db.exec(`CREATE TABLE IF NOT EXISTS dead_letters (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source TEXT NOT NULL CHECK (source IN ('update', 'outbox')),
    ref TEXT NOT NULL,
    raw TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT`);
  db.exec(`CREATE TABLE IF NOT EXISTS user_languages (
    user_id INTEGER PRIMARY KEY,
    language TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT`);
  db.exec(`CREATE TABLE IF NOT EXISTS chat_gate_retries (
    user_id INTEGER PRIMARY KEY,
    failures INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    restricted INTEGER NOT NULL CHECK (restricted IN (0, 1)),
    created_at INTEGER NOT NULL
  ) STRICT`);
}
