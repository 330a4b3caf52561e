import { chatIdArg, jsonArg, stringArg } from '../args.js';
import { badRequest, forbidden } from '../errors.js';
import { assertBotInChat, findUser } from '../members.js';
import { unixNow } from '../state.js';
import type { InlineKeyboardMarkup, Message } from '@grammyjs/types';
import type { TgChat } from '../types.js';
import type { MethodHandler } from './context.js';
import { readReplyMarkup } from './markup.js';

const MAX_TEXT_LENGTH = 4096;
const PARSE_MODES = new Set(['markdown', 'markdownv2', 'html']);
const MAIN_PARAMS = new Set(['chat_id', 'text', 'reply_markup']);

/**
 * sendMessage: checks the text (empty, over 4096), `parse_mode` and `reply_markup`, then the chat
 * the way Telegram does (unknown chat, a user who never started or blocked the bot, a chat the bot
 * is not in), then records the message and returns it. Text is stored trimmed, not parsed for
 * entities.
 */
export const sendMessage: MethodHandler<'sendMessage'> = ({ bot, params, world }) => {
  const text = (stringArg(params, 'text') ?? '').trim();
  if (text === '') throw badRequest('message text is empty');
  if (text.length > MAX_TEXT_LENGTH) throw badRequest('message is too long');
  const parseMode = stringArg(params, 'parse_mode');
  if (parseMode !== undefined && parseMode !== '' && !PARSE_MODES.has(parseMode.toLowerCase())) {
    throw badRequest('unsupported parse_mode');
  }
  const markup = readReplyMarkup(jsonArg(params, 'reply_markup', "can't parse reply keyboard markup JSON object"));

  const ref = chatIdArg(params);
  const target = world.findChat(ref);
  if (!target) throw badRequest('chat not found');
  let chat: TgChat;
  if (target.kind === 'private') {
    if (target.user.blocked) throw forbidden('bot was blocked by the user');
    if (!target.user.started) throw forbidden("bot can't initiate conversation with a user");
    chat = world.privateChat(target.user.user);
  } else {
    if (hasWebAppButton(markup.echoed)) throw badRequest('BUTTON_TYPE_INVALID');
    assertBotInChat(target.record);
    const isAdmin = target.record.bot.status === 'administrator' || target.record.bot.status === 'creator';
    if (target.record.chat.type === 'channel' && !isAdmin) throw badRequest('need administrator rights in the channel chat');
    chat = target.record.chat;
  }
  const message: Message.TextMessage = {
    message_id: world.nextMessageId(chat.id),
    date: unixNow(),
    chat,
    text,
  };
  const from = findUser(world, bot.user.id);
  if (chat.type === 'channel') message.sender_chat = chat;
  else if (from) message.from = from;
  if (markup.echoed !== undefined) message.reply_markup = markup.echoed;
  const options = Object.fromEntries(Object.entries(params).filter(([key]) => !MAIN_PARAMS.has(key)));
  if (markup.given !== undefined) options['reply_markup'] = markup.given;
  world.messages.push({ chatId: chat.id, direction: 'from_bot', botId: bot.user.id, message, options });
  return message;
};

/** Web App buttons are allowed only in private chats (Telegram answers BUTTON_TYPE_INVALID elsewhere). */
function hasWebAppButton(markup: InlineKeyboardMarkup | undefined): boolean {
  return markup?.inline_keyboard.some((row) => row.some((button) => 'web_app' in button)) ?? false;
}
