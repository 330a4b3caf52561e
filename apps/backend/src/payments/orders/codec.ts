import type { Builder } from 'flatbuffers';
import { encodeTable, fb } from '@wordgame/contracts';
import { unixSeconds } from '../../rpc/index.js';
import type { OrderRow } from './orders.store.js';

function writeOrder(b: Builder, o: OrderRow): number {
  const s = (v: string | null) => b.createString(v ?? '');
  const id = s(o.id);
  const title = s(o.title);
  const rail = s(o.rail);
  const provider = s(o.provider);
  const state = s(o.state);
  const currency = s(o.currency);
  const invoice = s(o.invoice_link);
  const confirmation = s(o.confirmation_url);
  const reason = s(o.failure_reason);
  fb.OrderView.startOrderView(b);
  fb.OrderView.addOrderId(b, id);
  fb.OrderView.addProductId(b, o.product_id);
  fb.OrderView.addTitle(b, title);
  fb.OrderView.addRail(b, rail);
  fb.OrderView.addProvider(b, provider);
  fb.OrderView.addState(b, state);
  fb.OrderView.addAmount(b, o.amount);
  fb.OrderView.addCurrency(b, currency);
  fb.OrderView.addChips(b, o.chips);
  fb.OrderView.addCreatedAtUnix(b, unixSeconds(o.created_at));
  fb.OrderView.addExpiresAtUnix(b, unixSeconds(o.expires_at));
  fb.OrderView.addPaidAtUnix(b, unixSeconds(o.paid_at));
  fb.OrderView.addInvoiceLink(b, invoice);
  fb.OrderView.addConfirmationUrl(b, confirmation);
  fb.OrderView.addFailureReason(b, reason);
  fb.OrderView.addRefunded(b, o.refund_id !== null);
  return fb.OrderView.endOrderView(b);
}

/** FlatBuffers body of an OrderView. */
export function encodeOrder(o: OrderRow): Uint8Array {
  return encodeTable((b) => writeOrder(b, o), 512);
}

/** FlatBuffers body of an OrderList. */
export function encodeOrderList(orders: readonly OrderRow[]): Uint8Array {
  return encodeTable((b) => {
    const items = orders.map((o) => writeOrder(b, o));
    return fb.OrderList.createOrderList(b, fb.OrderList.createOrdersVector(b, items));
  }, 1024);
}
