import type { Logger } from '@wordgame/logging';
import { liftLapsedBlocks } from '../accounts/index.js';
import { audit } from '../operator-audit/index.js';
import { summaries } from './accounts.js';
import { pushChatGate, type ModerationDeps } from './moderate.js';
import { createTicker } from '../support/index.js';

const BATCH = 100;

/** The temporary-block lapse loop: `tick(now)` for tests, `start()`/`stop()` with the app. */
export interface LapseLoop {
  tick(now?: Date): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Ends temporary blocks whose time has come: each lapsed account is set active in a claim
 * transaction (rows taken with FOR UPDATE SKIP LOCKED, so replicas never take the same one, and an
 * audit row without an operator), then its new chat eligibility is pushed to the bot exactly as
 * an unblock would. A lapse is emitted once: the row no longer matches afterwards.
 */
export function createLapseLoop(deps: ModerationDeps, intervalMs: number, logger: Logger = deps.logger): LapseLoop {
  async function tick(now: Date = deps.now()): Promise<number> {
    const lapsed = await deps.db.transaction().execute(async (trx) => {
      const ids = await liftLapsedBlocks(trx, now, BATCH);
      for (const id of ids) await audit(trx, { operatorId: null, action: 'block_lapsed', target: `account:${id}`, outcome: 'ok' });
      return summaries(trx, ids, now);
    });
    for (const account of lapsed) await pushChatGate(deps, account, 'block_lapsed');
    if (lapsed.length > 0) logger.info({ lapsed: lapsed.length }, 'temporary blocks lapsed');
    return lapsed.length;
  }

  return { tick, ...createTicker(tick, intervalMs, logger, 'block lapse tick failed') };
}
