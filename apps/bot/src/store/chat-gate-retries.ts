import type Database from 'better-sqlite3';

/** A discussion-chat joiner whose eligibility could not be resolved yet. */
export interface ChatGateRetry {
  userId: number;
  /** Failed eligibility lookups so far (1 after the join's own). */
  failures: number;
  /** Unix milliseconds of the next lookup. */
  nextAttemptAt: number;
  /** True once the fail-closed restriction reached the platform. */
  restricted: boolean;
}

interface RawRow {
  user_id: bigint;
  failures: bigint;
  next_attempt_at: bigint;
  restricted: bigint;
}

/**
 * The joiners the bot holds read-only until their chat eligibility resolves, in the bot's SQLite
 * file: a pending lookup outlives a restart (a bot killed while the gateway was down still lifts
 * the restriction of an eligible joiner later). One row per user; a later failure replaces it.
 */
export class ChatGateRetries {
  private readonly upsert: Database.Statement<[bigint, bigint, bigint, bigint, bigint]>;
  private readonly deleteOne: Database.Statement<[bigint]>;
  private readonly selectDue: Database.Statement<[bigint, number], RawRow>;
  private readonly selectOne: Database.Statement<[bigint], RawRow>;
  private readonly allDue: Database.Statement<[]>;
  private readonly selectNext: Database.Statement<[], { at: bigint | null }>;
  private readonly selectCount: Database.Statement<[], { n: bigint }>;

  constructor(
    db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {
    this.upsert = db.prepare(
      `INSERT INTO chat_gate_retries (user_id, failures, next_attempt_at, restricted, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET failures = excluded.failures, next_attempt_at = excluded.next_attempt_at, restricted = excluded.restricted`,
    );
    this.deleteOne = db.prepare('DELETE FROM chat_gate_retries WHERE user_id = ?');
    this.selectDue = db.prepare(
      'SELECT user_id, failures, next_attempt_at, restricted FROM chat_gate_retries WHERE next_attempt_at <= ? ORDER BY next_attempt_at, user_id LIMIT ?',
    );
    this.selectOne = db.prepare('SELECT user_id, failures, next_attempt_at, restricted FROM chat_gate_retries WHERE user_id = ?');
    this.allDue = db.prepare('UPDATE chat_gate_retries SET next_attempt_at = 0 WHERE next_attempt_at > 0');
    this.selectNext = db.prepare('SELECT MIN(next_attempt_at) AS at FROM chat_gate_retries');
    this.selectCount = db.prepare('SELECT COUNT(*) AS n FROM chat_gate_retries');
  }

  /** Records (or replaces) the pending lookup of `retry.userId`. */
  put(retry: ChatGateRetry): void {
    this.upsert.run(
      BigInt(retry.userId),
      BigInt(retry.failures),
      BigInt(retry.nextAttemptAt),
      retry.restricted ? 1n : 0n,
      BigInt(this.now()),
    );
  }

  /** Forgets the pending lookup of `userId` (resolved, or nothing left to gate). */
  remove(userId: number): void {
    this.deleteOne.run(BigInt(userId));
  }

  /** The pending lookup of `userId`, if any. */
  get(userId: number): ChatGateRetry | undefined {
    const row = this.selectOne.get(BigInt(userId));
    return row === undefined ? undefined : retryOf(row);
  }

  /** Pending lookups due at `nowMs`, earliest first. */
  due(nowMs: number, limit: number): ChatGateRetry[] {
    return this.selectDue.all(BigInt(nowMs), limit).map(retryOf);
  }

  /** Makes every pending lookup due now (a fresh process retries at once what an earlier one left). */
  makeAllDue(): void {
    this.allDue.run();
  }

  /** The earliest next lookup (unix ms), or undefined when none is pending. */
  nextDueAt(): number | undefined {
    const at = this.selectNext.get()?.at ?? null;
    return at === null ? undefined : Number(at);
  }

  /** How many joiners are held read-only pending their lookup. */
  count(): number {
    return Number(this.selectCount.get()?.n ?? 0n);
  }
}

function retryOf(row: RawRow): ChatGateRetry {
  return {
    userId: Number(row.user_id),
    failures: Number(row.failures),
    nextAttemptAt: Number(row.next_attempt_at),
    restricted: row.restricted === 1n,
  };
}
