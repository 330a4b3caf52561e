/**
 * The moderation feature's one public entry: account search, blocks and suspensions with their audit,
 * the chat gate over the bot port, and the lapse loop that lifts timed blocks. Other features import
 * from here only.
 */
export { type AccountSummary, findAccounts } from './accounts.js';
export { createLapseLoop, type LapseLoop } from './lapse.js';
export { type GateSent, moderate } from './moderate.js';
