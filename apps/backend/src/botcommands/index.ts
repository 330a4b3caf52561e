/**
 * The bot-command port's one public entry: how the backend reaches the bot (invoices, notices, the chat
 * gate, stars refunds) through the gateway's BotCommandService, and what became of each command. A low
 * module of its own so that payments, moderation (and through it game and social) depend on the port,
 * not on each other.
 */
export {
  ALREADY_REFUNDED,
  gatewayBotCommands,
  type BotCommands,
  type CommandOutcome,
  type InvoiceCommand,
  type NotifyCommand,
} from './commands.js';
export { chatGateOver, type ChatGate } from './chat-gate.js';
