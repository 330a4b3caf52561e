/**
 * Platform updates: the exclusive long poll (OWNS_UPDATES) and the router that turns each update into
 * the bot's reactions (join gate, pre-checkout answer, payment into the outbox, dead letters).
 */
export { UpdatePoller } from './poller.js';
export { updateRouter } from './router.js';
