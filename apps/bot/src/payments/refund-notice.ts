import { createTranslator, type Language } from '@wordgame/i18n';
import type { Logger } from '@wordgame/logging';
import { PlatformError, type PlatformClient } from '../platform/index.js';
import type { RefundNotices } from '../store/index.js';
import type { OutboxRow } from './outbox.store.js';

/**
 * Tells the payer, in their language, that a refund made outside the bot has been applied, once the
 * backend answered ForwardRefund with recorded=true (nothing is said for a refund it could not match:
 * an operator follows that up), once per charge (RefundNotices: a refund delivered again says nothing
 * more), in the chat's next paced slot when `pace` is given. A payer who blocked the bot is logged,
 * not retried: the refund stands.
 */
export function tellRefunded(
  platform: PlatformClient,
  notices: RefundNotices,
  languageFor: (userId: number) => Language,
  logger: Logger,
  pace?: (chatId: number) => Promise<void>,
): (row: OutboxRow, recorded: boolean) => Promise<void> {
  return async (row, recorded) => {
    if (!recorded || !notices.claim(row.platformChargeId)) return;
    const userId = Number(row.platformUserId);
    const text = createTranslator(languageFor(userId)).t('bot.payment_refunded', { order_id: row.orderId });
    try {
      await pace?.(userId);
      await platform.call('sendMessage', { chat_id: userId, text });
      logger.info({ orderId: row.orderId, platformChargeId: row.platformChargeId }, 'payer told of the refund');
    } catch (err: unknown) {
      if (!(err instanceof PlatformError)) throw err;
      logger.warn(
        { orderId: row.orderId, platformChargeId: row.platformChargeId, status: err.status, reason: err.description },
        'payer could not be told of the refund',
      );
    }
  };
}
