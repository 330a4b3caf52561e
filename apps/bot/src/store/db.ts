import { chmodSync, closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** The one mode of the bot's SQLite file and its `-wal` / `-shm`: payer ids, charge ids and amounts are the bot user's alone. */
export const BOT_DB_FILE_MODE = 0o600;
/** The mode of the folder the bot creates for its SQLite file (an existing folder is left as it is). */
export const BOT_DB_DIR_MODE = 0o700;

const SIDECARS = ['-wal', '-shm'] as const;

/** A file of the bot's database that was wider than owner-only and has been tightened (`was`: its old mode, octal). */
export interface TightenedFile {
  file: string;
  was: string;
}

/** How `openBotDb` reports a file it found wider than owner-only (the app logs it as a warning). */
export interface OpenBotDbOptions {
  onTightened?: (tightened: TightenedFile) => void;
}

/**
 * Opens the bot's SQLite file (WAL, synchronous=FULL, bigint integers) and brings its schema up
 * to date in place. Every step is idempotent, so a file written by an older bot (an outbox
 * without `next_attempt_at`, `last_error` or its order index, no dead-letter or refund-outbox table)
 * is migrated on open and a current one is left alone.
 *
 * The file and its `-wal` / `-shm` are owner-only (0600) whatever the umask: SQLite creates a new
 * database 0644 (less the umask) but gives its `-wal` and `-shm` the database file's own mode, so the
 * file is created 0600 before SQLite opens it, and an existing file (or a leftover `-wal` / `-shm`)
 * with group or other bits is narrowed to 0600 and reported through `onTightened`. A folder the bot
 * creates for it is 0700.
 */
export function openBotDb(path: string, options: OpenBotDbOptions = {}): Database.Database {
  const onDisk = path !== ':memory:' && path !== '';
  if (onDisk) {
    createDir(dirname(path));
    ownerOnlyFile(path, options);
    for (const suffix of SIDECARS) ownerOnlySidecar(`${path}${suffix}`, options);
  }
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.defaultSafeIntegers(true);
  db.transaction(() => migrate(db))();
  if (onDisk) {
    for (const suffix of SIDECARS) ownerOnlySidecar(`${path}${suffix}`, options);
  }
  return db;
}

/** Creates the file's folder 0700 when it is missing (the umask may only narrow `mkdir`'s mode, so it is set exactly after). */
function createDir(dir: string): void {
  if (mkdirSync(dir, { recursive: true, mode: BOT_DB_DIR_MODE }) !== undefined) chmodSync(dir, BOT_DB_DIR_MODE);
}

/** Creates the database file 0600 (exactly, whatever the umask) or narrows an existing one that is wider. */
function ownerOnlyFile(path: string, options: OpenBotDbOptions): void {
  let fd: number;
  let created = true;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, BOT_DB_FILE_MODE);
  } catch (err: unknown) {
    if (errorCode(err) !== 'EEXIST') throw err;
    created = false;
    fd = openSync(path, constants.O_RDONLY);
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if (created) {
      if (mode !== BOT_DB_FILE_MODE) fchmodSync(fd, BOT_DB_FILE_MODE);
    } else if ((mode & 0o077) !== 0) {
      fchmodSync(fd, BOT_DB_FILE_MODE);
      options.onTightened?.({ file: path, was: mode.toString(8) });
    }
  } finally {
    closeSync(fd);
  }
}

/** Narrows a `-wal` / `-shm` left wider than owner-only (one written before this rule); SQLite gives new ones the database file's mode. */
function ownerOnlySidecar(path: string, options: OpenBotDbOptions): void {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch (err: unknown) {
    if (errorCode(err) === 'ENOENT') return;
    throw err;
  }
  if ((mode & 0o077) === 0) return;
  chmodSync(path, BOT_DB_FILE_MODE);
  options.onTightened?.({ file: path, was: mode.toString(8) });
}

/** A Node system error's `code` (not `instanceof Error`: fs errors may come from another realm). */
function errorCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
}

/**
 * A stars subscription's charge keeps its recurring fields on its outbox row (ForwardPaymentRequest
 * fields 5-7): added with defaults that mean a one-time payment, so rows stored by an older bot
 * forward as before, and an older bot (a rollback) that names its columns still reads the table.
 * The refund outbox gets them too, so one row shape serves both kinds; refunds leave them 0.
 */
function addSubscriptionColumns(db: Database.Database, table: string): void {
  const present = new Set((db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((c) => c.name));
  const columns: [string, string][] = [
    ['is_recurring', 'INTEGER NOT NULL DEFAULT 0 CHECK (is_recurring IN (0, 1))'],
    ['is_first_recurring', 'INTEGER NOT NULL DEFAULT 0 CHECK (is_first_recurring IN (0, 1))'],
    ['subscription_expiration_unix', 'INTEGER NOT NULL DEFAULT 0'],
  ];
  for (const [name, definition] of columns) {
    if (!present.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${definition}`);
  }
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
  db.exec(`CREATE TABLE IF NOT EXISTS refund_outbox (
    charge_id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL,
    amount INTEGER NOT NULL,
    platform_user_id INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
  ) STRICT`);
  db.exec('CREATE INDEX IF NOT EXISTS refund_outbox_due ON refund_outbox (next_attempt_at, created_at)');
  for (const table of ['payment_outbox', 'refund_outbox']) addSubscriptionColumns(db, table);
  db.exec(`CREATE TABLE IF NOT EXISTS refund_notices (
    charge_id TEXT PRIMARY KEY,
    told_at INTEGER NOT NULL
  ) STRICT`);
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
  db.exec(`CREATE TABLE IF NOT EXISTS support_dialogues (
    user_id INTEGER PRIMARY KEY,
    stage TEXT NOT NULL CHECK (stage IN ('choosing', 'writing')),
    nonce TEXT NOT NULL,
    charge_ids TEXT NOT NULL,
    charge_id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT`);
}
