import type { Kysely } from 'kysely';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import type { Clock } from '../support/index.js';
import { pendingForgets } from './privacy.store.js';

const NAMES = ['backend_bot_forgets_pending', 'backend_bot_forget_oldest_seconds'];

/**
 * Registers the forget queue's series, read on scrape: `backend_bot_forgets_pending` (forgets of
 * deleted accounts' platform users the bot has not acked) and `backend_bot_forget_oldest_seconds`
 * (how long the oldest has waited; 0 when none waits). A forget that keeps waiting means the bot
 * keeps entries of a deleted user (docs/operating/privacy.md). A failed read leaves the series out
 * of that scrape and is logged. Answers a function that unregisters both.
 */
export function registerForgetGauges(registry: Registry, db: Kysely<DB>, now: Clock, logger: Logger): () => void {
  const read = () =>
    pendingForgets(db).catch((err: unknown) => {
      logger.warn({ err }, 'metrics: reading the bot forget queue failed');
      return null;
    });
  new Gauge({
    name: 'backend_bot_forgets_pending',
    help: "Forgets of deleted accounts' platform users (bot_forgets rows) the bot has not acked yet. Read on scrape.",
    registers: [registry],
    async collect() {
      const state = await read();
      if (state !== null) this.set(state.count);
    },
  });
  new Gauge({
    name: 'backend_bot_forget_oldest_seconds',
    help: 'Seconds the oldest forget not yet acked by the bot has waited since its account was deleted; 0 when none waits. Read on scrape.',
    registers: [registry],
    async collect() {
      const state = await read();
      if (state !== null) this.set(state.oldest === null ? 0 : Math.max(0, (now().getTime() - state.oldest.getTime()) / 1000));
    },
  });
  return () => {
    for (const name of NAMES) registry.removeSingleMetric(name);
  };
}
