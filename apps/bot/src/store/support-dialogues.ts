import type Database from 'better-sqlite3';

/**
 * Where a user's /paysupport stands: `choosing` after the list of charges was sent (the buttons
 * name `nonce`), `writing` once a button was pressed and the next message is the case's text.
 */
export type DialogueStage = 'choosing' | 'writing';

/** One user's pending /paysupport dialogue. */
export interface SupportDialogue {
  userId: number;
  stage: DialogueStage;
  /** The random tag of the list's buttons; a press carrying another one is stale. */
  nonce: string;
  /** The charge ids listed, in button order. */
  chargeIds: string[];
  /** The chosen charge; '' for a case in general (only once `writing`). */
  chargeId: string;
  /** Unix milliseconds after which the dialogue is over. */
  expiresAt: number;
}

interface RawRow {
  user_id: bigint;
  stage: string;
  nonce: string;
  charge_ids: string;
  charge_id: string;
  expires_at: bigint;
}

/**
 * The pending /paysupport dialogues in the bot's SQLite file, one per user (a new /paysupport
 * replaces it), so a user who pressed a button before a restart still has their next message
 * taken as the case text. Rows past `expiresAt` are never returned and are deleted by `prune`.
 */
export class SupportDialogues {
  private readonly upsert: Database.Statement<[bigint, string, string, string, string, bigint, bigint]>;
  private readonly selectOne: Database.Statement<[bigint, bigint], RawRow>;
  private readonly deleteOne: Database.Statement<[bigint]>;
  private readonly deleteExpired: Database.Statement<[bigint]>;

  constructor(
    db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {
    this.upsert = db.prepare(
      `INSERT INTO support_dialogues (user_id, stage, nonce, charge_ids, charge_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET stage = excluded.stage, nonce = excluded.nonce, charge_ids = excluded.charge_ids,
         charge_id = excluded.charge_id, expires_at = excluded.expires_at`,
    );
    this.selectOne = db.prepare(
      'SELECT user_id, stage, nonce, charge_ids, charge_id, expires_at FROM support_dialogues WHERE user_id = ? AND expires_at > ?',
    );
    this.deleteOne = db.prepare('DELETE FROM support_dialogues WHERE user_id = ?');
    this.deleteExpired = db.prepare('DELETE FROM support_dialogues WHERE expires_at <= ?');
  }

  /** Records (or replaces) the user's dialogue. */
  put(dialogue: SupportDialogue): void {
    this.upsert.run(
      BigInt(dialogue.userId),
      dialogue.stage,
      dialogue.nonce,
      JSON.stringify(dialogue.chargeIds),
      dialogue.chargeId,
      BigInt(dialogue.expiresAt),
      BigInt(this.now()),
    );
  }

  /** The user's dialogue while it has not expired. */
  get(userId: number): SupportDialogue | undefined {
    const row = this.selectOne.get(BigInt(userId), BigInt(this.now()));
    return row === undefined ? undefined : dialogueOf(row);
  }

  /** Ends the user's dialogue (case opened, or replaced by nothing). */
  remove(userId: number): void {
    this.deleteOne.run(BigInt(userId));
  }

  /** Deletes every expired dialogue; returns how many. */
  prune(): number {
    return this.deleteExpired.run(BigInt(this.now())).changes;
  }
}

function dialogueOf(row: RawRow): SupportDialogue {
  const ids: unknown = JSON.parse(row.charge_ids);
  return {
    userId: Number(row.user_id),
    stage: row.stage === 'writing' ? 'writing' : 'choosing',
    nonce: row.nonce,
    chargeIds: Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [],
    chargeId: row.charge_id,
    expiresAt: Number(row.expires_at),
  };
}
