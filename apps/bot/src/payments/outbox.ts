import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** A successful platform payment waiting to be forwarded (ForwardPaymentRequest's fields). */
export interface OutboxPayment {
  /** The platform's charge id: the primary key here and the idempotency key at the backend. */
  chargeId: string;
  orderId: string;
  /** Whole stars. */
  amount: bigint;
  platformUserId: bigint;
}

/** A stored payment and how often forwarding it has failed so far. */
export interface OutboxRow extends OutboxPayment {
  attempts: number;
}

interface RawRow {
  charge_id: string;
  order_id: string;
  amount: bigint;
  platform_user_id: bigint;
  attempts: bigint;
}

/**
 * The durable payment outbox: a SQLite file (WAL, synchronous=FULL) holding successful payments
 * until ForwardPayment got a response. `add()` commits before it returns, which is what lets the
 * update loop confirm the payment's update right after it. The same charge stored twice (an
 * update delivered again) is one row.
 */
export class PaymentOutbox {
  private constructor(private readonly db: Database.Database) {}

  /** Opens (creating if needed) the outbox file and its table. */
  static open(path: string): PaymentOutbox {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.defaultSafeIntegers(true);
    db.exec(`CREATE TABLE IF NOT EXISTS payment_outbox (
      charge_id TEXT PRIMARY KEY,
      order_id TEXT NOT NULL,
      amount INTEGER NOT NULL,
      platform_user_id INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL
    ) STRICT`);
    return new PaymentOutbox(db);
  }

  /** Stores a payment durably; false when that charge is already waiting. */
  add(payment: OutboxPayment): boolean {
    const result = this.db
      .prepare('INSERT OR IGNORE INTO payment_outbox (charge_id, order_id, amount, platform_user_id, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(payment.chargeId, payment.orderId, payment.amount, payment.platformUserId, BigInt(Date.now()));
    return result.changes > 0;
  }

  /** Waiting payments, oldest first. */
  pending(limit = 100): OutboxRow[] {
    const rows = this.db
      .prepare('SELECT charge_id, order_id, amount, platform_user_id, attempts FROM payment_outbox ORDER BY created_at, charge_id LIMIT ?')
      .all(limit) as RawRow[];
    return rows.map((r) => ({ chargeId: r.charge_id, orderId: r.order_id, amount: r.amount, platformUserId: r.platform_user_id, attempts: Number(r.attempts) }));
  }

  /** Counts a failed forwarding attempt. */
  recordFailure(chargeId: string): void {
    this.db.prepare('UPDATE payment_outbox SET attempts = attempts + 1 WHERE charge_id = ?').run(chargeId);
  }

  /** Forgets a payment once ForwardPayment answered. */
  remove(chargeId: string): void {
    this.db.prepare('DELETE FROM payment_outbox WHERE charge_id = ?').run(chargeId);
  }

  close(): void {
    this.db.close();
  }
}
