/**
 * The payment feature's one public entry: orders, the card rail (provider, notifications, settle),
 * the stars rail (pre-checkout, forwarded payments), refunds, the chat-eligibility method of the bot intake (BotIntakeService) and the reaper.
 * Other features and app.ts import from here only; the folders below are the feature's internals.
 */
export { paymentDeps } from './module.js';
export type { PaymentDeps } from './deps.js';
export { paymentsService } from './orders/service.js';
export { notificationService } from './card/notifications.js';
export { starsIntakeMethods } from './stars/intake.js';
export { chatEligibilityMethods } from './chat-eligibility/service.js';
export { createReaper, type Reaper } from './reaper/reaper.js';
export { createStarRefunder, type StarRefunder } from './refunds/star-refunds.js';
export { refundOrder, type ConsoleRefund } from './refunds/console.js';
export { shopOf, type CardRail } from './deps.js';
export { findOrder, type OrderRow } from './orders/orders.store.js';
export { historyOrders, type HistoryCursor, type HistoryOrderRow } from './orders/orders.store.js';
export { ordersSection } from './orders/export.store.js';
export { erasePayerIds } from './orders/orders.store.js';
export { STARS_PROVIDER } from './orders/state.js';
export { creditOrder } from './orders/credit.js';
export { ProviderError, type ListPage, type ListQuery, type ProviderPayment, type Shop } from './card/provider/types.js';
export { settleFromProvider } from './card/settle.js';
export type { OrdersTable, PaymentEventsTable, StarRefundStatus, UnmatchedPaymentsTable } from './payments.table.js';
export { refundUncreditedCard } from './refunds/uncredited-card.js';
export type { ChargeAction } from './refunds/uncredited.js';
export { creditStarsCharge, refundUncreditedStars } from './stars/charges.js';
export { starRefundPayer } from './refunds/stars-console.js';
