/**
 * The bot's SQLite file: opening it (schema migrated in place) and its tables other than the
 * payment outbox (which payments keeps): dead letters, users' languages, chat-gate retries, pending
 * /paysupport dialogues, refund notices, and the forget of one user across them.
 */
export { ChatGateRetries, type ChatGateRetry } from './chat-gate-retries.js';
export { openBotDb, type OpenBotDbOptions, type TightenedFile } from './db.js';
export { DeadLetters } from './dead-letters.js';
export { type ForgetReport, UserForgetter } from './forget.js';
export { RefundNotices } from './refund-notices.js';
export { UserLanguages } from './user-languages.js';
export { SupportDialogues, type DialogueStage, type SupportDialogue } from './support-dialogues.js';
