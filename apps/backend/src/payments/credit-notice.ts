import { connector } from '@wordgame/contracts';
import type { OrderRail } from '../db/schema.js';
import { tellCustomer } from './customer-notice.js';
import type { PaymentDeps } from './deps.js';

/** The credited order a customer is told about. */
export interface CreditedPayment {
  accountId: bigint;
  orderId: string;
  rail: OrderRail;
  /** The pack's title, as on the order. */
  title: string;
  /** Chips the pack added (the order's snapshot). */
  chips: bigint;
}

/**
 * Tells the customer their money arrived (PAYMENT_CREDITED through the bot, a mail to a confirmed
 * address). Called once per credit, after the credit committed (see onCredited), so a slow channel
 * cannot hold a lock or undo a credit. Never throws.
 */
export function notifyPaymentCredited(deps: PaymentDeps, paid: CreditedPayment): Promise<void> {
  return tellCustomer(deps, {
    kind: 'credited',
    accountId: paid.accountId,
    orderId: paid.orderId,
    log: { rail: paid.rail },
    bot: {
      kind: connector.NotificationKind.PAYMENT_CREDITED,
      params: { order_id: paid.orderId, product_title: paid.title, chips: String(paid.chips) },
    },
    mail: {
      subject: 'Your payment was received',
      text: [
        `Your ${paid.rail === 'stars' ? 'stars' : 'card'} payment for "${paid.title}" was received; ${paid.chips} chips were added to your wallet.`,
        '',
        `Order: ${paid.orderId}`,
      ].join('\n'),
    },
  });
}
