import { encodeTable, fb } from '@wordgame/contracts';
import { z } from 'zod';
import type { BackendClients } from '../../backend/index.js';
import { requestLanguage } from '../language.js';
import type { Operation } from '../operation.js';
import { byField, idParam, jsonBody, parseInput } from '../validation.js';
import { readOrder, readOrderList } from './codec.js';
import { orderPath } from './params.js';
import { orderListWire, orderWire } from './wire.js';

/** Payment rails a customer may choose: stars (inside telegram, XTR) or card (the provider). */
export const RAILS = ['stars', 'card'] as const;

const createBody = z.object({ product_id: idParam, rail: z.enum(RAILS) }).strict();
const listQuery = z.object({
  limit: z
    .string()
    .regex(/^([1-9][0-9]?|100)$/, 'must be an integer from 1 to 100')
    .transform(Number)
    .optional(),
});

/**
 * The customer's paid orders under /api/v1/user/wallet: `wallet.order_create` (a trusted session:
 * opens an order on a rail and answers the invoice link or the provider's confirmation URL),
 * `wallet.orders` (newest first, failed ones included) and `wallet.order_get`. Only the caller's
 * own orders are visible: another account's order is 404 `unknown_order`, as is a missing one.
 */
export function orderOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'wallet.order_create',
      method: 'post',
      path: '/api/v1/user/wallet/orders',
      auth: 'trusted_session',
      doc: {
        tag: 'orders',
        summary: 'Open an order on a payment rail',
        description:
          "stars: answers the invoice link (inside Telegram); card: the provider's confirmation URL. The invoice's (or payment's) title and description are in the language `Accept-Language` names first among en and ru (else English). A time-limited offer is refused outside its window (`offer_not_available`; an order opened inside it stays payable for its 30 minutes); a product with a per-player purchase limit is refused once the player's paid and pending orders and chips purchases of it in the period reach it (`purchase_limit_reached`).",
        body: createBody,
        examples: { card: { product_id: '12', rail: 'card' }, stars: { product_id: '12', rail: 'stars' } },
        success: { status: 201, description: 'The pending order.', body: orderWire },
        errors: [
          'invalid_product_id',
          'invalid_rail',
          'unknown_product',
          'rail_not_offered',
          'not_sold_on_rail',
          'currency_not_settled',
          'offer_not_available',
          'purchase_limit_reached',
          'email_required',
          'purchase_forbidden',
          'account_suspended',
          'payment_rejected',
          'rail_not_configured',
          'bot_unavailable',
          'bot_delivery_failed',
          'provider_unavailable',
        ],
      },
      async handle({ req, call }) {
        const input = parseInput(createBody, jsonBody(req), byField({ product_id: 'invalid_product_id', rail: 'invalid_rail' }));
        const locale = requestLanguage(req);
        const body = encodeTable((b) =>
          fb.OrderCreate.createOrderCreate(b, input.product_id, b.createString(input.rail), b.createString(locale)),
        );
        return { status: 201, body: readOrder((await backend.payments.createOrder({ body }, call)).body) };
      },
    },
    {
      name: 'wallet.orders',
      method: 'get',
      path: '/api/v1/user/wallet/orders',
      auth: 'session',
      doc: {
        tag: 'orders',
        summary: "The caller's orders, newest first",
        query: listQuery,
        success: { status: 200, description: 'The orders.', body: orderListWire },
        errors: [],
      },
      async handle({ req, call }) {
        const query = parseInput(listQuery, req.query);
        const body = encodeTable((b) => fb.OrderListQuery.createOrderListQuery(b, query.limit ?? 0));
        return { status: 200, body: { orders: readOrderList((await backend.payments.listOrders({ body }, call)).body) } };
      },
    },
    {
      name: 'wallet.order_get',
      method: 'get',
      path: '/api/v1/user/wallet/orders/:id',
      auth: 'session',
      doc: {
        tag: 'orders',
        summary: "One of the caller's orders",
        params: orderPath,
        success: { status: 200, description: 'The order.', body: orderWire },
        errors: ['invalid_order_id', 'unknown_order'],
      },
      async handle({ req, call }) {
        const { id } = parseInput(orderPath, req.params, 'invalid_order_id');
        const body = encodeTable((b) => fb.OrderQuery.createOrderQuery(b, b.createString(id)));
        return { status: 200, body: readOrder((await backend.payments.getOrder({ body }, call)).body) };
      },
    },
  ];
}
