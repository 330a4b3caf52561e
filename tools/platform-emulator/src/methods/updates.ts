import { intArg, jsonArg } from '../args.js';
import { badRequest } from '../errors.js';
import type { MethodHandler } from './context.js';

/**
 * getUpdates: long polling with Telegram's parameters. `offset` confirms earlier updates (negative:
 * keep only the last -offset), `limit` is clamped to 1-100 (default 100), `timeout` is whole
 * seconds to wait when nothing is pending, `allowed_updates` (JSON list) replaces the bot's filter
 * for updates created from now on. A newer call terminates a waiting one with 409.
 */
export const getUpdates: MethodHandler<'getUpdates'> = ({ bot, params, signal }) => {
  const offset = intArg(params, 'offset');
  const limit = intArg(params, 'limit');
  const timeout = intArg(params, 'timeout');
  const allowed = jsonArg(params, 'allowed_updates', "can't parse allowed updates JSON object");
  if (allowed !== undefined && (!Array.isArray(allowed) || !allowed.every((t) => typeof t === 'string'))) {
    throw badRequest("can't parse allowed updates JSON object");
  }
  return bot.queue.poll(
    {
      offset: offset === undefined || Number.isNaN(offset) ? undefined : offset,
      limit: limit === undefined || Number.isNaN(limit) || limit <= 0 ? 100 : Math.min(limit, 100),
      timeoutMs: timeout === undefined || Number.isNaN(timeout) ? 0 : Math.max(0, timeout) * 1000,
      allowedUpdates: allowed,
    },
    signal,
  );
};
