import { decodeTable, fb } from '@wordgame/contracts';
import { isoFromUnix } from '../fbs-read.js';

/**
 * An order as JSON (amount and chips are bigints, sent as decimal strings in minor units; XTR is
 * whole stars). `state` is pending | paid | failed | expired (expired = honoured-expired: a payment
 * that still arrives credits it). Empty optional strings read as null.
 */
export interface OrderJson {
  order_id: string;
  product_id: bigint;
  title: string;
  rail: string;
  provider: string;
  state: string;
  amount: bigint;
  currency: string;
  chips: bigint;
  created_at: string | null;
  expires_at: string | null;
  paid_at: string | null;
  invoice_link: string | null;
  confirmation_url: string | null;
  failure_reason: string | null;
  refunded: boolean;
}

/** The result of an operator refund: succeeded (recorded), pending (press again) or canceled. */
export interface RefundJson {
  order_id: string;
  status: string;
  refund_id: string | null;
  amount: bigint;
  currency: string;
}

function orderOf(t: InstanceType<typeof fb.OrderView>): OrderJson {
  return {
    order_id: t.orderId() ?? '',
    product_id: t.productId(),
    title: t.title() ?? '',
    rail: t.rail() ?? '',
    provider: t.provider() ?? '',
    state: t.state() ?? '',
    amount: t.amount(),
    currency: t.currency() ?? '',
    chips: t.chips(),
    created_at: isoFromUnix(t.createdAtUnix()),
    expires_at: isoFromUnix(t.expiresAtUnix()),
    paid_at: isoFromUnix(t.paidAtUnix()),
    invoice_link: t.invoiceLink() || null,
    confirmation_url: t.confirmationUrl() || null,
    failure_reason: t.failureReason() || null,
    refunded: t.refunded(),
  };
}

/** Decodes an OrderView body. */
export function readOrder(body: Uint8Array): OrderJson {
  return decodeTable(body, (bb) => fb.OrderView.getRootAsOrderView(bb), orderOf);
}

/** Decodes an OrderList body. */
export function readOrderList(body: Uint8Array): OrderJson[] {
  return decodeTable(
    body,
    (bb) => fb.OrderList.getRootAsOrderList(bb),
    (t) => {
      const out: OrderJson[] = [];
      for (let i = 0; i < t.ordersLength(); i++) {
        const o = t.orders(i);
        if (o) out.push(orderOf(o));
      }
      return out;
    },
  );
}

/** Decodes an OrderRefundResult body. */
export function readRefund(body: Uint8Array): RefundJson {
  return decodeTable(
    body,
    (bb) => fb.OrderRefundResult.getRootAsOrderRefundResult(bb),
    (t) => ({
      order_id: t.orderId() ?? '',
      status: t.status() ?? '',
      refund_id: t.refundId() || null,
      amount: t.amount(),
      currency: t.currency() ?? '',
    }),
  );
}
