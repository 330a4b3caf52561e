import type Database from 'better-sqlite3';

/** What one forget erased from the bot's file. */
export interface ForgetReport {
  languages: number;
  chatGateRetries: number;
  deadLetters: number;
  supportDialogues: number;
}

/**
 * Erases everything the bot's SQLite file keeps about one platform user whose account was deleted,
 * in one transaction: the user's language entry, a queued chat-gate retry, a pending /paysupport
 * dialogue, and dead letters whose
 * raw update names the user (any `id` or `user_id` equal to the user's id: the sender, a joiner, a
 * private chat). A parked update that holds a successful or refunded payment stays: it is money moved that no
 * backend answered, kept like the ledger for accounting. The payment and refund outboxes are never touched
 * for the same reason (its rows go once the backend has the payment). Idempotent.
 */
export class UserForgetter {
  private readonly run: (userId: bigint) => ForgetReport;

  constructor(db: Database.Database) {
    const languages = db.prepare<[bigint]>('DELETE FROM user_languages WHERE user_id = ?');
    const retries = db.prepare<[bigint]>('DELETE FROM chat_gate_retries WHERE user_id = ?');
    const dialogues = db.prepare<[bigint]>('DELETE FROM support_dialogues WHERE user_id = ?');
    const letters = db.prepare<[bigint]>(
      `DELETE FROM dead_letters
       WHERE json_valid(raw)
         AND NOT (source = 'outbox' OR instr(raw, '"successful_payment"') > 0 OR instr(raw, '"refunded_payment"') > 0)
         AND EXISTS (
           SELECT 1 FROM json_tree(dead_letters.raw) AS node
           WHERE node.key IN ('id', 'user_id') AND node.type = 'integer' AND node.atom = ?
         )`,
    );
    this.run = db.transaction((userId: bigint) => ({
      languages: languages.run(userId).changes,
      chatGateRetries: retries.run(userId).changes,
      deadLetters: letters.run(userId).changes,
      supportDialogues: dialogues.run(userId).changes,
    }));
  }

  /** Erases the user's entries; answers how many rows of each kind went (all zero on a repeat). */
  forget(userId: bigint): ForgetReport {
    return this.run(userId);
  }
}
