/**
 * The bot's chat commands (/start, /paysupport, /privacy, /terms): parsing a message's command,
 * the /paysupport dialogue over ListStarCharges and OpenSupportCase, the per-user rate limit and
 * per-chat send pacing, their counters, and the command menu registered at start.
 */
export { ChatCommands, MAX_CASE_TEXT, type ChatCommandsOptions, type SupportRpc } from './chat-commands.js';
export { ChatCommandCounters, type ChatCommandCount, type ChatInput, type ChatOutcome } from './counters.js';
export { CommandMenu, MENU_LANGUAGES } from './menu.js';
export { ChatPacer } from './pacing.js';
export { CHAT_COMMANDS, commandIn, type ChatCommandName, type ParsedCommand } from './parse.js';
export { UserRateLimit, type RateVerdict } from './rate-limit.js';
