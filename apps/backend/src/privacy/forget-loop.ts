import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { BotCommands } from '../botcommands/index.js';
import type { DB } from '../db/index.js';
import { createTicker, type Clock } from '../support/index.js';
import { claimDueForgets, forgetDone, forgetLater } from './privacy.store.js';

/** Forgets one tick sends at most; the rest wait for the next tick. */
const BATCH = 50;
/** First wait after an unacked forget; it doubles up to the configured maximum. */
const FIRST_RETRY_MS = 5_000;
/** How long a claimed forget is held by the tick that sends it (longer than a command's wait). */
const LEASE_MS = 60_000;

/** What the forget loop needs. */
export interface ForgetDeps {
  db: Kysely<DB>;
  bot: Pick<BotCommands, 'forgetUser'>;
  logger: Logger;
  now: Clock;
}

/** The loop that delivers the bot's forgets: `tick()` for tests, `start()`/`stop()` with the app. */
export interface ForgetLoop {
  /** Sends every due forget once; answers how many the bot acked. */
  tick(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Sends the queued `forget_user` commands (privacy/store.ts) until the bot acks each
 * delivered: a bot that is down (no_bot), slow (timeout) or failing leaves the row queued, due again
 * after a doubling wait capped at `retryMaxMs`, so a forget queued while the bot was away reaches it
 * once it is back. At least once: the bot's forget is idempotent.
 */
export function createForgetLoop(deps: ForgetDeps, options: { intervalMs: number; retryMaxMs: number }): ForgetLoop {
  async function tick(): Promise<number> {
    const now = deps.now();
    const due = await claimDueForgets(deps.db, now, new Date(now.getTime() + LEASE_MS), BATCH);
    let acked = 0;
    for (const forget of due) {
      const outcome = await deps.bot.forgetUser(forget.userId);
      if (outcome.status === 'delivered') {
        await forgetDone(deps.db, forget.id);
        acked += 1;
        continue;
      }
      const wait = Math.min(options.retryMaxMs, FIRST_RETRY_MS * 2 ** Math.min(Math.max(forget.attempts - 1, 0), 20));
      const error = 'error' in outcome ? `${outcome.status}: ${outcome.error}` : outcome.status;
      await forgetLater(deps.db, forget.id, new Date(deps.now().getTime() + wait), error);
      deps.logger.warn(
        { forgetId: String(forget.id), attempt: forget.attempts, outcome: outcome.status },
        'bot forget not acked; retried later',
      );
    }
    if (acked > 0) deps.logger.info({ acked }, 'bot forgets delivered');
    return acked;
  }
  return { tick, ...createTicker(tick, options.intervalMs, deps.logger, 'bot forget tick failed') };
}
