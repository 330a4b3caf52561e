import type { TgMessage } from '../platform/index.js';

/** The commands the bot answers (the menu registered with setMyCommands lists them). */
export const CHAT_COMMANDS = ['start', 'paysupport', 'privacy', 'terms'] as const;

export type ChatCommandName = (typeof CHAT_COMMANDS)[number];

/** A command a message carries: a known name, or `unknown` for any other command addressed to the bot. */
export interface ParsedCommand {
  name: ChatCommandName | 'unknown';
  /** The text after the command, trimmed. */
  args: string;
}

const KNOWN: ReadonlySet<string> = new Set(CHAT_COMMANDS);

/**
 * The command at the start of `message`, the way Telegram marks it: a `bot_command` entity at
 * offset 0 (`/cmd` or `/cmd@BotName`). In a private chat every command is for this bot unless it
 * names another bot; in a group only one naming this bot (`botUsername`, case-insensitive) is.
 * Undefined when the message carries no command for this bot.
 */
export function commandIn(message: TgMessage, botUsername: string | undefined): ParsedCommand | undefined {
  const text = message.text;
  const entity = message.entities?.find((e) => e.type === 'bot_command' && e.offset === 0);
  if (text === undefined || entity === undefined || entity.length < 2) return undefined;
  const token = text.slice(0, entity.length);
  if (!token.startsWith('/')) return undefined;
  const [rawName = '', target] = token.slice(1).split('@', 2);
  const ours = botUsername?.toLowerCase();
  const addressed = target !== undefined && ours !== undefined && target.toLowerCase() === ours;
  if (message.chat.type === 'private') {
    if (target !== undefined && ours !== undefined && !addressed) return undefined;
  } else if (!addressed) {
    return undefined;
  }
  const name = rawName.toLowerCase();
  return { name: KNOWN.has(name) ? (name as ChatCommandName) : 'unknown', args: text.slice(entity.length).trim() };
}
