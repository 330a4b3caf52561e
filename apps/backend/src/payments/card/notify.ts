import { connector } from '@wordgame/contracts';
import { tellCustomer } from '../customer-notice.js';
import type { PaymentDeps } from '../deps.js';

/** The failed card order a customer is told about. */
export interface FailedPayment {
  accountId: bigint;
  orderId: string;
  /** The pack's title, as on the order. */
  title: string;
  /** The provider's cancellation reason (e.g. insufficient_funds), also the order's failure_reason. */
  reason: string;
}

/**
 * Tells the customer their card payment failed (PAYMENT_FAILED through the bot, a mail to a
 * confirmed address), so a web-only customer hears of it too. The order view shows the failure
 * (state failed, failure_reason) whatever happens here. Never throws.
 */
export function notifyPaymentFailed(deps: PaymentDeps, failed: FailedPayment): Promise<void> {
  return tellCustomer(deps, {
    kind: 'failed',
    accountId: failed.accountId,
    orderId: failed.orderId,
    bot: { kind: connector.NotificationKind.PAYMENT_FAILED, params: { order_id: failed.orderId, reason: failed.reason } },
    mail: {
      subject: 'Your payment did not go through',
      text: [
        `Your card payment for "${failed.title}" was canceled (${failed.reason}); no chips were added.`,
        '',
        `Order: ${failed.orderId}`,
        '',
        'You can start a new purchase from the wallet at any time.',
      ].join('\n'),
    },
  });
}
