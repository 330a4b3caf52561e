import type { BotCommands, CommandOutcome } from './commands.js';

/**
 * Pushes a ChatGateCommand {external_id, allow} to the bot through the gateway's internal
 * BotCommandService. At most once: a failed call is reported, never retried (the bot re-checks
 * eligibility when a user joins the chat).
 */
export interface ChatGate {
  send(externalId: string, allow: boolean): Promise<CommandOutcome>;
}

/** The chat gate over the backend's one bot command channel. */
export function chatGateOver(bot: Pick<BotCommands, 'chatGate'>): ChatGate {
  return { send: (externalId, allow) => bot.chatGate(externalId, allow) };
}
