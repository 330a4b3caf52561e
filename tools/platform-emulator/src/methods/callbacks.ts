import { boolArg, intArg, requiredStringArg, stringArg } from '../args.js';
import { badRequest } from '../errors.js';
import { unixNow } from '../state.js';
import type { MethodHandler } from './context.js';

const MAX_ANSWER_TEXT = 200;

/**
 * answerCallbackQuery: answers a callback_query the emulator sent this bot, once: an unknown id,
 * one of another bot or one answered already is Telegram's "query is too old" 400. The notice
 * (`text`, 0-200 characters), `show_alert`, `url` and `cache_time` are recorded for the control API.
 */
export const answerCallbackQuery: MethodHandler<'answerCallbackQuery'> = ({ bot, params, world }) => {
  const id = requiredStringArg(params, 'callback_query_id');
  const query = world.callbackQueries.get(id);
  if (query?.botId !== bot.user.id || query.answeredAt !== undefined) {
    throw badRequest('query is too old and response timeout expired or query ID is invalid');
  }
  const text = stringArg(params, 'text');
  if (text !== undefined && [...text].length > MAX_ANSWER_TEXT) throw badRequest('MESSAGE_TOO_LONG');
  const cacheTime = intArg(params, 'cache_time');
  if (cacheTime !== undefined && (Number.isNaN(cacheTime) || cacheTime < 0)) throw badRequest('invalid cache_time specified');
  query.answeredAt = unixNow();
  query.answer = { showAlert: boolArg(params, 'show_alert') };
  if (text !== undefined && text !== '') query.answer.text = text;
  const url = stringArg(params, 'url');
  if (url !== undefined && url !== '') query.answer.url = url;
  return true;
};
