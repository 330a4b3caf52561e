/**
 * The make-goods feature's one public entry: an operator's grant of chips, hints or no-ads days
 * to a player with a reason, within per-operator daily caps (MakeGoodService). Only app.ts uses it.
 */
export { type MakeGoodCaps, type MakeGoodDeps } from './grant.js';
export { createMakeGoodOutcomes } from './metrics.js';
export { makeGoodService } from './service.js';
export type { MakeGoodsTable } from './make-goods.table.js';
