/**
 * The subscriptions feature's one public entry: stars subscriptions (the monthly pass) and their paid
 * periods. Payments records a subscription's first payment, each renewal and each refunded period
 * through the store functions here, in its own transactions; app.ts registers the service.
 */
export { passState, type PassState, type SubscriptionDeps } from './service.js';
export { subscriptionService } from './rpc.js';
export {
  eraseSubscriptionPayers,
  extendSubscription,
  insertPeriod,
  insertSubscription,
  lockSubscriptionOfOrder,
  refundPeriod,
  subscriptionByFirstOrderForUpdate,
  subscriptionsSection,
  type FirstPeriod,
  type SubscriptionRow,
} from './subscriptions.store.js';
export type { StarSubscriptionPeriodsTable, StarSubscriptionsTable } from './subscriptions.table.js';
