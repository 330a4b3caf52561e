import { languageOf } from '@wordgame/i18n';
import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, fb } from '@wordgame/contracts';
import { clientAddressOf, type Quota } from '../../limits/index.js';
import { callerFrom } from '../../rpc/index.js';
import type { PaymentDeps } from '../deps.js';
import { isOrderId, paymentError } from '../errors.js';
import { encodeOrder, encodeOrderList } from './codec.js';
import { createOrder } from './create.js';
import { findOrder, recentOrders } from './orders.store.js';

const DEFAULT_LIST = 20;
const MAX_LIST = 100;

/**
 * backend.v1.PaymentsService: the caller's paid orders (caller headers required on every method).
 * Each CreateOrder takes one unit of `orderQuota` (per account and client address) first.
 */
export function paymentsService(deps: PaymentDeps, orderQuota: Quota): ServiceImpl<typeof backendApi.PaymentsService> {
  return {
    async createOrder(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      const q = decodeTable(
        req.body,
        (bb) => fb.OrderCreate.getRootAsOrderCreate(bb),
        (t) => ({ productId: t.productId(), rail: t.rail(), language: languageOf(t.locale()) ?? 'en' }),
      );
      await orderQuota.take(caller.accountId, clientAddressOf(ctx.requestHeader));
      const order = await createOrder(deps, caller, q.productId, q.rail, q.language);
      deps.logger.info(
        { orderId: order.id, accountId: String(caller.accountId), rail: order.rail, productId: String(order.product_id) },
        'order created',
      );
      return { body: encodeOrder(order) };
    },
    async getOrder(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      const orderId = decodeTable(
        req.body,
        (bb) => fb.OrderQuery.getRootAsOrderQuery(bb),
        (t) => t.orderId(),
      );
      if (!isOrderId(orderId)) throw paymentError('invalid_order_id', 'order_id must be a uuid');
      const order = await findOrder(deps.db, orderId);
      if (!order || order.account_id !== caller.accountId) throw paymentError('unknown_order', 'no such order');
      return { body: encodeOrder(order) };
    },
    async listOrders(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      const limit = decodeTable(
        req.body,
        (bb) => fb.OrderListQuery.getRootAsOrderListQuery(bb),
        (t) => t.limit(),
      );
      const n = limit <= 0 ? DEFAULT_LIST : Math.min(limit, MAX_LIST);
      return { body: encodeOrderList(await recentOrders(deps.db, caller.accountId, n)) };
    },
  };
}
