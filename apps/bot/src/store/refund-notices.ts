import type Database from 'better-sqlite3';

/**
 * The refunds made outside the bot whose payer has been told, by charge id (no user data): the
 * notice goes out once per charge, also when Telegram delivers the refunded_payment again or the
 * backend answers a second ForwardRefund of it (recorded=true, changing nothing).
 */
export class RefundNotices {
  private readonly insert: Database.Statement<[string, bigint]>;

  constructor(db: Database.Database) {
    this.insert = db.prepare('INSERT OR IGNORE INTO refund_notices (charge_id, told_at) VALUES (?, ?)');
  }

  /** Claims the notice of `chargeId`: true the first time (tell the payer), false ever after. */
  claim(chargeId: string): boolean {
    return this.insert.run(chargeId, BigInt(Date.now())).changes > 0;
  }
}
