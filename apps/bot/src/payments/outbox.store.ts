import type Database from 'better-sqlite3';
import { openBotDb, type OpenBotDbOptions } from '../store/index.js';

/** A successful platform payment waiting to be forwarded (ForwardPaymentRequest's fields). */
export interface OutboxPayment {
  /** The platform's charge id: the primary key here and the idempotency key at the backend. */
  platformChargeId: string;
  orderId: string;
  /** Whole stars. */
  amount: bigint;
  platformUserId: bigint;
  /**
   * A stars subscription's charge (successful_payment.is_recurring): first charge or renewal, and
   * the unix second its paid period ends (ForwardPaymentRequest fields 5, 6, 7). Absent (false, 0)
   * for a one-time payment and for every refund row.
   */
  subscription?: OutboxSubscription;
}

/** What a subscription's charge adds to its outbox row. */
export interface OutboxSubscription {
  /** successful_payment.is_first_recurring: the subscription's first charge (a renewal is false). */
  first: boolean;
  /** successful_payment.subscription_expiration_date, unix seconds. */
  expirationUnix: bigint;
}

/** A stored payment, how often forwarding it has failed so far, and when it may be tried next. */
export interface OutboxRow extends OutboxPayment {
  attempts: number;
  /** Unix milliseconds; 0 for a row never tried. */
  nextAttemptAt: number;
}

/** A waiting payment as an operator reads it (`outbox list`). */
export interface OutboxEntry extends OutboxRow {
  /** Unix milliseconds when the payment was stored. */
  createdAt: number;
  /** Why the last forwarding attempt failed; undefined for a row never tried or written by an older bot. */
  lastError: string | undefined;
}

/** The rows whose forwarding failed at least once and that still wait (Health fields 6 and 7). */
export interface FailingRows {
  count: number;
  /** Age in milliseconds of the oldest of them (since it was stored); 0 when none. */
  oldestAgeMs: number;
}

/**
 * A row as SQLite returns it. The key column keeps its first name, `charge_id`: a renamed column
 * would stop the previous release's bot (a rollback) and its outbox command from reading the
 * waiting payments. This interface, COLUMNS, the SQL below and `rowOf` are the only places that
 * name it; everything else says `platformChargeId`.
 */
interface RawRow {
  charge_id: string;
  order_id: string;
  amount: bigint;
  platform_user_id: bigint;
  attempts: bigint;
  next_attempt_at: bigint;
  is_recurring: bigint;
  is_first_recurring: bigint;
  subscription_expiration_unix: bigint;
}

const COLUMNS =
  'charge_id, order_id, amount, platform_user_id, attempts, next_attempt_at, is_recurring, is_first_recurring, subscription_expiration_unix';

/**
 * What an outbox row carries to the backend: a successful payment (ForwardPayment) or a refund made
 * outside the bot (ForwardRefund). Each kind has its own table of one shape (store/db.ts): a refund
 * and the payment it returns share a charge id, and a bot of an earlier release (a rollback) reads
 * only `payment_outbox`, so it never forwards a refund as a payment.
 */
export type OutboxKind = 'payment' | 'refund';

const TABLES: Readonly<Record<OutboxKind, string>> = { payment: 'payment_outbox', refund: 'refund_outbox' };

/**
 * The durable payment outbox: a table in the bot's SQLite file holding successful payments until
 * ForwardPayment got a response (the `refund` kind: refunds made outside the bot until ForwardRefund
 * got one), however long that takes: no failure removes a row. `add()`
 * commits before it returns, which is what lets the update loop confirm the payment's update
 * right after it. The same charge stored twice (an update delivered again) is one row. Each row
 * keeps its own `next_attempt_at`, so a row that keeps failing waits on its own backoff and never
 * holds up the rows behind it. The file is in WAL mode, so the operator command (`outbox list`,
 * `outbox retry`) reads and writes it beside the running bot.
 */
export class PaymentOutbox {
  private readonly table: string;
  /** Every statement of the hot path, compiled once per outbox (SQLite parses and plans at prepare). */
  private readonly sql: ReturnType<typeof prepareStatements>;

  /** The outbox of one kind of row in the bot's database (default: payments). */
  constructor(
    private readonly db: Database.Database,
    readonly kind: OutboxKind = 'payment',
  ) {
    this.table = TABLES[kind];
    this.sql = prepareStatements(db, this.table);
  }

  /** Opens (creating or migrating if needed, owner-only: see `openBotDb`) the bot's SQLite file and returns its outbox. */
  static open(path: string, options: OpenBotDbOptions = {}, kind: OutboxKind = 'payment'): PaymentOutbox {
    return new PaymentOutbox(openBotDb(path, options), kind);
  }

  /** The outbox of another kind on the same database (closing either closes both). */
  sibling(kind: OutboxKind): PaymentOutbox {
    return new PaymentOutbox(this.db, kind);
  }

  /**
   * Stores a payment durably (a subscription's charge with its recurring fields); false when that
   * charge is already waiting. Its commit is the payment's one fsync (WAL, synchronous=FULL): the
   * row is on disk before the update loop confirms the update.
   */
  add(payment: OutboxPayment): boolean {
    const sub = payment.subscription;
    const result = this.sql.insert.run(
      payment.platformChargeId,
      payment.orderId,
      payment.amount,
      payment.platformUserId,
      BigInt(Date.now()),
      sub ? 1n : 0n,
      sub?.first === true ? 1n : 0n,
      sub?.expirationUnix ?? 0n,
    );
    return result.changes > 0;
  }

  /**
   * True while a payment for `orderId` waits here (no ForwardPayment response yet): the pre-checkout
   * rule declines another charge for that order (index payment_outbox_order).
   */
  holdsPaymentFor(orderId: string): boolean {
    return this.sql.holds.get(orderId) !== undefined;
  }

  /** Every waiting payment, oldest first. */
  pending(limit = 100): OutboxRow[] {
    return this.sql.pending.all(limit).map(rowOf);
  }

  /** Payments whose next attempt is due at `nowMs`, oldest first. */
  due(nowMs: number, limit = 100): OutboxRow[] {
    return this.sql.due.all(BigInt(nowMs), limit).map(rowOf);
  }

  /** The earliest next attempt of any waiting payment (unix ms), or undefined when none waits. */
  nextDueAt(): number | undefined {
    const row = this.sql.nextDue.get();
    return row?.at === null || row === undefined ? undefined : Number(row.at);
  }

  /** Makes every waiting payment due now (a fresh process retries at once what an earlier one left). */
  makeAllDue(): void {
    this.sql.makeAllDue.run();
  }

  /**
   * Counts a failed forwarding attempt, keeps why it failed, and sets when the row may be tried
   * again. Not fsynced on its own (see `lazily`): a lost count only retries sooner.
   */
  recordFailure(platformChargeId: string, nextAttemptAt: number, error: string): void {
    this.lazily(() => this.sql.recordFailure.run(BigInt(nextAttemptAt), error.slice(0, 1_000), platformChargeId));
  }

  /** How many rows have failed at least once and still wait, and the age of the oldest at `nowMs`. */
  failing(nowMs: number): FailingRows {
    const row = this.sql.failing.get() ?? { n: 0n, oldest: null };
    return { count: Number(row.n), oldestAgeMs: row.oldest === null ? 0 : Math.max(0, nowMs - Number(row.oldest)) };
  }

  /** Every waiting payment with its history, oldest first (what `outbox list` prints). */
  entries(): OutboxEntry[] {
    const rows = this.db
      .prepare(`SELECT ${COLUMNS}, created_at, last_error FROM ${this.table} ORDER BY created_at, charge_id`)
      .all() as (RawRow & { created_at: bigint; last_error: string | null })[];
    return rows.map((r) => ({ ...rowOf(r), createdAt: Number(r.created_at), lastError: r.last_error ?? undefined }));
  }

  /**
   * Makes one waiting payment (or, without a charge id, every one) due now; the running
   * forwarder picks it up on its next look at the file. Returns how many rows it made due.
   */
  retryNow(platformChargeId?: string): number {
    const result =
      platformChargeId === undefined
        ? this.db.prepare(`UPDATE ${this.table} SET next_attempt_at = 0`).run()
        : this.db.prepare(`UPDATE ${this.table} SET next_attempt_at = 0 WHERE charge_id = ?`).run(platformChargeId);
    return result.changes;
  }

  /**
   * Forgets a payment once ForwardPayment answered. Not fsynced on its own (see `lazily`): a delete
   * lost to a power cut brings the row back, and forwarding it again is answered idempotently by
   * the backend (the charge id is its idempotency key).
   */
  remove(platformChargeId: string): void {
    this.lazily(() => this.sql.remove.run(platformChargeId));
  }

  close(): void {
    this.db.close();
  }

  /**
   * Runs a write whose loss is harmless with synchronous=NORMAL: in WAL mode its commit is not
   * fsynced by itself but by the next FULL commit (the next `add`) or checkpoint, which sync the
   * WAL up to and past it. A process kill loses nothing either way (the WAL is in the OS's cache);
   * only a power cut can drop it. Keeps one fsync per payment, the insert's.
   */
  private lazily(write: () => unknown): void {
    this.sql.syncNormal.run();
    try {
      write();
    } finally {
      this.sql.syncFull.run();
    }
  }
}

/** The outbox's statements on `table`, prepared once. */
function prepareStatements(db: Database.Database, table: string) {
  return {
    insert: db.prepare<[string, string, bigint, bigint, bigint, bigint, bigint, bigint]>(
      `INSERT OR IGNORE INTO ${table} (charge_id, order_id, amount, platform_user_id, created_at, is_recurring, is_first_recurring, subscription_expiration_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    holds: db.prepare<[string], unknown>(`SELECT 1 FROM ${table} WHERE order_id = ? LIMIT 1`),
    pending: db.prepare<[number], RawRow>(`SELECT ${COLUMNS} FROM ${table} ORDER BY created_at, charge_id LIMIT ?`),
    due: db.prepare<[bigint, number], RawRow>(
      `SELECT ${COLUMNS} FROM ${table} WHERE next_attempt_at <= ? ORDER BY created_at, charge_id LIMIT ?`,
    ),
    nextDue: db.prepare<[], { at: bigint | null }>(`SELECT MIN(next_attempt_at) AS at FROM ${table}`),
    makeAllDue: db.prepare(`UPDATE ${table} SET next_attempt_at = 0 WHERE next_attempt_at > 0`),
    recordFailure: db.prepare<[bigint, string, string]>(
      `UPDATE ${table} SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE charge_id = ?`,
    ),
    failing: db.prepare<[], { n: bigint; oldest: bigint | null }>(
      `SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM ${table} WHERE attempts > 0`,
    ),
    remove: db.prepare<[string]>(`DELETE FROM ${table} WHERE charge_id = ?`),
    syncNormal: db.prepare('PRAGMA synchronous = NORMAL'),
    syncFull: db.prepare('PRAGMA synchronous = FULL'),
  };
}

function rowOf(r: RawRow): OutboxRow {
  const row: OutboxRow = {
    platformChargeId: r.charge_id,
    orderId: r.order_id,
    amount: r.amount,
    platformUserId: r.platform_user_id,
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
  };
  if (r.is_recurring !== 0n) row.subscription = { first: r.is_first_recurring !== 0n, expirationUnix: r.subscription_expiration_unix };
  return row;
}
