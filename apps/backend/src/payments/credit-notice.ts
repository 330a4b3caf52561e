import { connector } from '@wordgame/contracts';
import type { OrderRail } from './payments.table.js';
import { tellCustomer } from './customer-notice.js';
import type { PaymentDeps } from './deps.js';

/** The credited order a customer is told about. */
export interface CreditedPayment {
  accountId: bigint;
  orderId: string;
  rail: OrderRail;
  /** The pack's title, as on the order (English). */
  title: string;
  /** The product ordered: its title in each language goes to the bot (see localizedTitles). */
  productId: bigint;
  /** Chips the pack added (the order's snapshot). */
  chips: bigint;
}

/**
 * Tells the customer their money arrived (PAYMENT_CREDITED through the bot, a mail to a confirmed
 * address). Called once per credit, after the credit committed (see onCredited), so a slow channel
 * cannot hold a lock or undo a credit. Never throws.
 */
export async function notifyPaymentCredited(deps: PaymentDeps, paid: CreditedPayment): Promise<void> {
  const titles = await localizedTitles(deps, paid.productId);
  return tellCustomer(deps, {
    kind: 'credited',
    accountId: paid.accountId,
    orderId: paid.orderId,
    log: { rail: paid.rail },
    bot: {
      kind: connector.NotificationKind.PAYMENT_CREDITED,
      params: { ...titles, order_id: paid.orderId, product_title: paid.title, chips: String(paid.chips) },
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

/**
 * `product_title_<locale>` for each language the product has a title in (`product_title_ru`, …):
 * the bot words the notice in the user's language, which only it knows, and takes the title in the
 * same language (apps/bot commands/templates.ts), falling back to `product_title` (English).
 * A failed look-up only loses the translations, never the notice.
 */
async function localizedTitles(deps: PaymentDeps, productId: bigint): Promise<Record<string, string>> {
  try {
    const rows = await deps.catalog.titles(productId);
    return Object.fromEntries(rows.map((r) => [`product_title_${r.locale}`, r.title]));
  } catch (err: unknown) {
    deps.logger.warn({ err, productId: String(productId) }, 'payment credited notice: product titles not read; English only');
    return {};
  }
}
