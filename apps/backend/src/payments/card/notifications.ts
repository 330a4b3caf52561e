import { type ServiceImpl, ConnectError } from '@connectrpc/connect';
import { z } from 'zod';
import { backendApi, decodeTable, DomainError, encodeTable, fb } from '@wordgame/contracts';
import { findOrder, orderByProviderPayment, type OrderRow } from '../orders/orders.store.js';
import { CREDITABLE_STATES } from '../orders/state.js';
import { applyCardRefund } from '../refunds/card-refund.js';
import { shopOf, type CardRail, type PaymentDeps } from '../deps.js';
import { isOrderId, paymentError } from '../errors.js';
import { ProviderError, type Shop } from './provider/types.js';
import { handled, ignored, type Disposition } from './disposition.js';
import { settleFromProvider } from './settle.js';

/** An id as providers write them: no control characters (PostgreSQL text cannot even hold a NUL). */
const providerId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^\u0000-\u001f\u007f]+$/);

const notificationSchema = z.object({
  event: z.string().min(1).max(64),
  object: z.object({
    id: providerId,
    payment_id: providerId.optional(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
  }),
});

/**
 * Handles one provider notification. It is only a hint: the body names an event and an object,
 * nothing in it is believed. The order is found first (payment: by the recorded provider payment
 * id, falling back to metadata.order_id only to find a candidate that has no payment recorded yet;
 * refund: by its payment_id); an unknown order, a payment hint for an order no longer creditable,
 * or a refund hint for an order already refunded ends here with no provider call. Otherwise the object is re-read from the provider with the
 * order's shop, at most once per PROVIDER_REREAD_WINDOW_MS per object across replicas (deps.rereads:
 * the rest answer `reread_coalesced` and the object is re-read once more when the window ends), and
 * only that answer is acted on (settleFromProvider; refunds bind through the re-read refund's
 * payment id). Throws intake_unavailable when it could not decide (provider unreachable, database
 * failure) so the provider redelivers.
 */
export async function handleNotification(deps: PaymentDeps, providerName: string | null, body: Uint8Array): Promise<Disposition> {
  const card = deps.card;
  if (!card || providerName !== card.provider.name) throw paymentError('unknown_provider', 'no card provider by this name');
  let parsed: z.infer<typeof notificationSchema>;
  try {
    const result = notificationSchema.safeParse(JSON.parse(Buffer.from(body).toString('utf8')));
    if (!result.success) return ignored('malformed');
    parsed = result.data;
  } catch {
    return ignored('malformed');
  }
  const { event, object } = parsed;
  try {
    if (event.startsWith('payment.')) return await paymentHint(deps, card, object.id, object.metadata?.['order_id']);
    if (event === 'refund.succeeded') return await refundHint(deps, card, object.id, object.payment_id);
    return ignored('unhandled_event');
  } catch (err: unknown) {
    if (err instanceof ConnectError) throw err;
    if (err instanceof DomainError && err.code === 'intake_unavailable') throw err;
    deps.logger.warn({ err, event, objectId: object.id }, 'notification intake could not decide; the provider will redeliver');
    throw paymentError('intake_unavailable', 'could not decide now; redeliver later');
  }
}

async function paymentHint(deps: PaymentDeps, card: CardRail, paymentId: string, metadataOrderId: unknown): Promise<Disposition> {
  let order: OrderRow | undefined = await orderByProviderPayment(deps.db, card.provider.name, paymentId);
  if (!order && typeof metadataOrderId === 'string' && isOrderId(metadataOrderId)) {
    const candidate = await findOrder(deps.db, metadataOrderId);
    if (candidate?.rail === 'card' && candidate.provider === card.provider.name) {
      // A recorded payment is the only one that can settle the order (settleFromProvider): another id re-reads nothing.
      if (candidate.provider_payment_id !== null) return ignored('payment_mismatch');
      order = candidate;
    }
  }
  if (!order) return ignored('unknown_order');
  if (!CREDITABLE_STATES.includes(order.state)) return handled('already_settled');
  const found = order;
  const shop = shopOf(card, found.shop);
  if (!shop) {
    deps.logger.error({ orderId: found.id, shop: found.shop }, 'order shop is no longer configured');
    throw new Error('order shop is not configured');
  }
  return deps.rereads.run(
    { shop: shop.id, kind: 'payment', objectId: paymentId },
    async () => {
      const payment = await reread(() => card.provider.getPayment(shop, paymentId));
      if (payment === null) return ignored('not_found');
      return settleFromProvider(deps, found, shop, payment);
    },
    () => paymentHint(deps, card, paymentId, metadataOrderId),
  );
}

async function refundHint(deps: PaymentDeps, card: CardRail, refundId: string, paymentId: string | undefined): Promise<Disposition> {
  const order = paymentId === undefined ? undefined : await orderByProviderPayment(deps.db, card.provider.name, paymentId);
  if (!order) return ignored('unknown_order');
  // Recorded once per order (recordRefund): any later refund notification could only answer this.
  if (order.refund_id !== null) return handled('already_refunded');
  const shop = shopOf(card, order.shop);
  if (!shop) throw new Error('order shop is not configured');
  return deps.rereads.run(
    { shop: shop.id, kind: 'refund', objectId: refundId },
    () => settleRefund(deps, card, order, shop, refundId),
    () => refundHint(deps, card, refundId, paymentId),
  );
}

/** Re-reads refund `refundId` and acts on it for `order` (applyCardRefund: recorded once when it is the order's full, succeeded refund). */
async function settleRefund(deps: PaymentDeps, card: CardRail, order: OrderRow, shop: Shop, refundId: string): Promise<Disposition> {
  const refund = await reread(() => card.provider.getRefund(shop, refundId));
  if (refund === null) return ignored('not_found');
  const applied = await applyCardRefund(deps, order, refund);
  switch (applied) {
    case 'mismatch':
      return ignored('refund_mismatch');
    case 'pending':
    case 'canceled':
      return handled('refund_not_succeeded');
    case 'partial':
      return handled('partial_refund');
    case 'recorded':
      return handled('refund_recorded');
    case 'closed_uncredited':
      return handled('refund_of_unpaid_order');
    case 'already_refunded':
    case 'no_order':
      return handled('already_refunded');
  }
}

/** A provider re-read: null when the object does not exist for the shop; other failures propagate. */
async function reread<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (err: unknown) {
    if (err instanceof ProviderError && err.failure === 'not_found') return null;
    throw err;
  }
}

/**
 * backend.v1.NotificationService (no caller headers: the gateway's notification route). Its method
 * keeps the wire name `Intake` (a renamed Connect method would fail every call from a gateway of the
 * previous release); it is handleNotification.
 */
export function notificationService(deps: PaymentDeps): ServiceImpl<typeof backendApi.NotificationService> {
  return {
    async intake(req) {
      const n = decodeTable(
        req.body,
        (bb) => fb.ProviderNotification.getRootAsProviderNotification(bb),
        (t) => ({
          provider: t.provider(),
          body: t.bodyArray() ?? new Uint8Array(),
        }),
      );
      const d = await handleNotification(deps, n.provider, n.body);
      deps.logger.info({ provider: n.provider, disposition: d.disposition, detail: d.detail }, 'provider notification');
      return {
        body: encodeTable((b) =>
          fb.NotificationDisposition.createNotificationDisposition(b, b.createString(d.disposition), b.createString(d.detail)),
        ),
      };
    },
  };
}
