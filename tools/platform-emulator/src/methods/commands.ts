import type { BotCommand, MenuButton } from '@grammyjs/types';
import { chatIdArg, jsonArg, stringArg, userIdArg } from '../args.js';
import { badRequest } from '../errors.js';
import type { Params } from '../params.js';
import type { World } from '../state.js';
import type { MethodHandler } from './context.js';

/** Telegram's limits on a bot's command list. */
const MAX_COMMANDS = 100;
const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;
const MAX_DESCRIPTION = 256;
/** A language_code: empty (every language without its own list) or a two-letter ISO 639-1 code. */
const LANGUAGE_CODE = /^([a-z]{2})?$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The key of a BotCommandScope (https://core.telegram.org/bots/api#botcommandscope): `default`
 * when absent; the chat scopes resolve their chat_id (and user_id) like every other method.
 */
function scopeKey(params: Params, world: World): string {
  const scope = jsonArg(params, 'scope', "can't parse BotCommandScope JSON object");
  if (scope === undefined) return 'default';
  if (!isObject(scope) || typeof scope['type'] !== 'string') throw badRequest("can't parse BotCommandScope JSON object");
  switch (scope['type']) {
    case 'default':
    case 'all_private_chats':
    case 'all_group_chats':
    case 'all_chat_administrators':
      return scope['type'];
    case 'chat':
    case 'chat_administrators':
    case 'chat_member': {
      const ref = chatIdArg(scope);
      const found = world.findChat(ref);
      if (!found) throw badRequest('chat not found');
      const chatId = found.kind === 'group' ? found.record.chat.id : found.user.user.id;
      if (scope['type'] !== 'chat_member') return `${scope['type']}:${chatId}`;
      if (found.kind !== 'group') throw badRequest('chat not found');
      return `chat_member:${chatId}:${userIdArg(scope)}`;
    }
    default:
      throw badRequest('wrong BotCommandScope type specified');
  }
}

function languageArg(params: Params): string {
  const code = stringArg(params, 'language_code') ?? '';
  if (!LANGUAGE_CODE.test(code)) throw badRequest('invalid language code specified');
  return code;
}

function commandsKey(botId: number, scope: string, language: string): string {
  return `${botId}|${scope}|${language}`;
}

/** Reads `commands` with Telegram's checks: a JSON list of at most 100 BotCommand, names [a-z0-9_]{1,32}, descriptions 1-256. */
function readCommands(params: Params): BotCommand[] {
  const value = jsonArg(params, 'commands', "can't parse commands JSON object");
  if (!Array.isArray(value)) throw badRequest("can't parse commands JSON object");
  if (value.length > MAX_COMMANDS) throw badRequest('BOT_COMMANDS_TOO_MUCH');
  return value.map((item: unknown) => {
    if (!isObject(item) || typeof item['command'] !== 'string' || typeof item['description'] !== 'string') {
      throw badRequest("can't parse BotCommand JSON object");
    }
    const command = item['command'];
    const description = item['description'].trim();
    if (!COMMAND_NAME.test(command)) throw badRequest('BOT_COMMAND_INVALID');
    if (description.length < 1 || [...description].length > MAX_DESCRIPTION) throw badRequest('BOT_COMMAND_DESCRIPTION_INVALID');
    return { command, description };
  });
}

/**
 * setMyCommands: the bot's command list for a scope (default: every chat) and a language_code
 * (empty: users whose language has no list of its own). An empty list deletes it, as Telegram does.
 */
export const setMyCommands: MethodHandler<'setMyCommands'> = ({ bot, params, world }) => {
  const commands = readCommands(params);
  const key = commandsKey(bot.user.id, scopeKey(params, world), languageArg(params));
  if (commands.length === 0) world.botCommands.delete(key);
  else world.botCommands.set(key, commands);
  return true;
};

/** getMyCommands: the list set for exactly that scope and language_code; [] when none is. */
export const getMyCommands: MethodHandler<'getMyCommands'> = ({ bot, params, world }) => {
  const key = commandsKey(bot.user.id, scopeKey(params, world), languageArg(params));
  return (world.botCommands.get(key) ?? []).map((c) => ({ ...c }));
};

/** deleteMyCommands: removes the list of that scope and language_code (then the broader ones apply). */
export const deleteMyCommands: MethodHandler<'deleteMyCommands'> = ({ bot, params, world }) => {
  world.botCommands.delete(commandsKey(bot.user.id, scopeKey(params, world), languageArg(params)));
  return true;
};

/** A private chat's key for the menu button, or `default` without chat_id. */
function menuChatKey(params: Params, world: World, botId: number): string {
  if (stringArg(params, 'chat_id') === undefined) return `${botId}|default`;
  const found = world.findChat(chatIdArg(params));
  if (found?.kind !== 'private') throw badRequest('chat not found');
  return `${botId}|${found.user.user.id}`;
}

/** Reads a MenuButton (commands, web_app with text and an https url, or default). */
function readMenuButton(params: Params): MenuButton {
  const value = jsonArg(params, 'menu_button', "can't parse menu button JSON object");
  if (value === undefined) return { type: 'default' };
  if (!isObject(value)) throw badRequest("can't parse menu button JSON object");
  switch (value['type']) {
    case 'default':
      return { type: 'default' };
    case 'commands':
      return { type: 'commands' };
    case 'web_app': {
      const text = value['text'];
      const webApp = value['web_app'];
      if (typeof text !== 'string' || text.trim() === '') throw badRequest('menu button text is empty');
      if (!isObject(webApp) || typeof webApp['url'] !== 'string') throw badRequest("can't parse menu button JSON object");
      const url = webApp['url'];
      if (!isHttps(url)) throw badRequest(`menu button Web App URL '${url}' is invalid: Only HTTPS links are allowed`);
      return { type: 'web_app', text, web_app: { url } };
    }
    default:
      throw badRequest('unsupported menu button type');
  }
}

/** True for an absolute https URL (what Telegram accepts for a Web App). */
export function isHttps(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

/** setChatMenuButton: a private chat's menu button, or the default one without chat_id; `default` (or none) clears it. */
export const setChatMenuButton: MethodHandler<'setChatMenuButton'> = ({ bot, params, world }) => {
  const key = menuChatKey(params, world, bot.user.id);
  const button = readMenuButton(params);
  if (button.type === 'default') world.menuButtons.delete(key);
  else world.menuButtons.set(key, button);
  return true;
};

/** getChatMenuButton: the chat's own button, else the bot's default one, else MenuButtonDefault. */
export const getChatMenuButton: MethodHandler<'getChatMenuButton'> = ({ bot, params, world }) => {
  const key = menuChatKey(params, world, bot.user.id);
  const button = world.menuButtons.get(key) ?? world.menuButtons.get(`${bot.user.id}|default`) ?? { type: 'default' };
  return structuredClone(button);
};
