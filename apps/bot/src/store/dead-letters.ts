import type Database from 'better-sqlite3';

/**
 * Where a dead letter came from: an update the bot could not handle. `outbox` is only read back:
 * bots before issue #26 parked payments the gateway refused; payments are now retried until answered.
 */
export type DeadLetterSource = 'update' | 'outbox';

/** One parked item, as operators read it back. */
export interface DeadLetter {
  id: number;
  source: DeadLetterSource;
  /** The update_id, or the outbox row's charge id. */
  ref: string;
  /** The raw update or row, as JSON. */
  raw: string;
  reason: string;
  /** Unix milliseconds when it was parked. */
  createdAt: number;
}

interface RawDeadLetter {
  id: bigint;
  source: DeadLetterSource;
  ref: string;
  raw: string;
  reason: string;
  created_at: bigint;
}

/**
 * The dead-letter table in the bot's SQLite file: updates the bot could not handle and moved
 * aside so they block nothing behind them. Nothing is dropped silently: each keeps its raw form
 * and the reason, `park` commits before it returns, and `onParked` feeds the Health `dead_letters`
 * delta (and so the gateway's `bot_dead_letters_total`). Operators read them with
 * `sqlite3 $BOT_OUTBOX_PATH 'SELECT * FROM dead_letters'`.
 */
export class DeadLetters {
  private readonly insert: Database.Statement<[string, string, string, string, bigint]>;
  private readonly paymentFor: Database.Statement<[string], unknown>;

  constructor(
    private readonly db: Database.Database,
    private readonly onParked: () => void = () => undefined,
  ) {
    this.insert = db.prepare('INSERT INTO dead_letters (source, ref, raw, reason, created_at) VALUES (?, ?, ?, ?, ?)');
    this.paymentFor = db.prepare(
      `SELECT 1 FROM dead_letters
       WHERE (source = 'outbox' OR instr(raw, '"successful_payment"') > 0)
         AND CASE WHEN json_valid(raw) THEN
           CASE source
             WHEN 'outbox' THEN json_extract(raw, '$.orderId')
             ELSE json_extract(raw, '$.message.successful_payment.invoice_payload')
           END = ?
         ELSE 0 END
       LIMIT 1`,
    );
  }

  /** Stores one dead letter durably; throws when the file cannot be written (the caller retries). */
  park(source: DeadLetterSource, ref: string, raw: unknown, reason: string): void {
    this.insert.run(source, ref, jsonOf(raw), reason, BigInt(Date.now()));
    this.onParked();
  }

  /**
   * True when a parked item holds a confirmed payment for `orderId`: an outbox row the gateway
   * refused, or a successful_payment update the bot could not handle. Either is money taken that no
   * ForwardPayment answered, so the pre-checkout rule counts it like an outbox row. Only rows that
   * can be payments are parsed (outbox rows, updates naming successful_payment); they are few.
   */
  holdsPaymentFor(orderId: string): boolean {
    const row = this.paymentFor.get(orderId);
    return row !== undefined;
  }

  /** Every dead letter, oldest first. */
  list(): DeadLetter[] {
    const rows = this.db.prepare('SELECT id, source, ref, raw, reason, created_at FROM dead_letters ORDER BY id').all() as RawDeadLetter[];
    return rows.map((r) => ({
      id: Number(r.id),
      source: r.source,
      ref: r.ref,
      raw: r.raw,
      reason: r.reason,
      createdAt: Number(r.created_at),
    }));
  }
}

/** JSON of anything, bigints as decimal strings; a value JSON cannot hold is kept as its String(). */
function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}
