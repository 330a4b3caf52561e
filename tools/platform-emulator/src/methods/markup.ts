import type { InlineKeyboardButton, InlineKeyboardMarkup } from '@grammyjs/types';
import { badRequest } from '../errors.js';
import { isHttps } from './commands.js';

const BUTTON_ACTIONS = [
  'url',
  'callback_data',
  'web_app',
  'login_url',
  'switch_inline_query',
  'switch_inline_query_current_chat',
  'switch_inline_query_chosen_chat',
  'copy_text',
  'callback_game',
  'pay',
];
const KEYBOARD_KINDS = ['inline_keyboard', 'keyboard', 'remove_keyboard', 'force_reply'];

/** A validated reply_markup: `given` as sent, `echoed` what the sent Message carries (inline keyboards only). */
export interface ReplyMarkup {
  given?: Record<string, unknown>;
  echoed?: InlineKeyboardMarkup;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates a decoded `reply_markup` with Telegram's errors for the mistakes bots make most:
 * a non-object, an inline keyboard that is not an array of arrays, a button without text or
 * without an action, callback_data over 64 bytes (BUTTON_DATA_INVALID), a web_app button whose
 * url is not https.
 */
export function readReplyMarkup(value: unknown): ReplyMarkup {
  if (value === undefined || value === '') return {};
  if (!isObject(value)) throw badRequest('object expected as reply markup');
  if (!KEYBOARD_KINDS.some((kind) => kind in value)) throw badRequest("can't parse reply keyboard markup JSON object");
  if (!('inline_keyboard' in value)) return { given: value };
  const rows = value['inline_keyboard'];
  if (!Array.isArray(rows) || !rows.every((row) => Array.isArray(row))) {
    throw badRequest('field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays');
  }
  for (const row of rows as unknown[][]) {
    for (const button of row) checkInlineButton(button);
  }
  return { given: value, echoed: { inline_keyboard: rows as InlineKeyboardButton[][] } };
}

function checkInlineButton(button: unknown): void {
  if (!isObject(button)) throw badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
  if (typeof button['text'] !== 'string') {
    throw badRequest(`can't parse inline keyboard button: Field "text" must be of type String`);
  }
  if (!BUTTON_ACTIONS.some((action) => action in button)) {
    throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  }
  const webApp = button['web_app'];
  if (webApp !== undefined) {
    const url = isObject(webApp) ? webApp['url'] : undefined;
    if (typeof url !== 'string') throw badRequest('can\'t parse inline keyboard button: Field "url" must be of type String');
    if (!isHttps(url)) throw badRequest(`inline keyboard button Web App URL '${url}' is invalid: Only HTTPS links are allowed`);
  }
  const data = button['callback_data'];
  if (data !== undefined && (typeof data !== 'string' || Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64)) {
    throw badRequest('BUTTON_DATA_INVALID');
  }
}
