import { boolArg } from '../args.js';
import type { MethodHandler } from './context.js';

/** getMe: the bot's own User with its capability flags. */
export const getMe: MethodHandler<'getMe'> = ({ bot }) => bot.user;

/**
 * deleteWebhook: there is never a webhook here, so it only honours `drop_pending_updates`.
 * Bot frameworks (grammY's `bot.start()`) call it before polling.
 */
export const deleteWebhook: MethodHandler<'deleteWebhook'> = ({ bot, params }) => {
  if (boolArg(params, 'drop_pending_updates')) bot.queue.dropPending();
  return true;
};

/** getWebhookInfo: always "no webhook", with the real pending update count. */
export const getWebhookInfo: MethodHandler<'getWebhookInfo'> = ({ bot }) => ({
  url: '',
  has_custom_certificate: false,
  pending_update_count: bot.queue.pendingUpdates.length,
});
