import type { Kysely } from 'kysely';
import { encodeTable, fb } from '@wordgame/contracts';
import type { DB } from '../db/index.js';
import { findOrder, starRefundPayer } from '../payments/index.js';
import { DomainError } from '../rpc/index.js';

/** A lower-case canonical uuid, the only form order ids take (as the refund itself checks). */
const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The facts of one order as the ledger refund's confirmation page shows them, read only: what a
 * refund would return (amount, currency, rail, provider), to whom (the account; for stars the
 * platform user the stars go back to, the payer recorded on the order or else the account's
 * telegram identity, as the stars refund picks it) and the order now (state, chips, a recorded
 * refund, a refund in flight). invalid_order_id for a malformed id, unknown_order for none.
 */
export async function refundOrderFacts(db: Kysely<DB>, orderId: string | null): Promise<Uint8Array> {
  if (orderId === null || !ORDER_ID.test(orderId)) throw new DomainError('invalid_order_id', 'order_id must be a uuid');
  const order = await findOrder(db, orderId);
  if (!order) throw new DomainError('unknown_order', 'no such order');
  const payer = order.rail !== 'stars' ? 0n : ((await starRefundPayer(db, order)) ?? 0n);
  return encodeTable((b) =>
    fb.RefundOrderFacts.createRefundOrderFacts(
      b,
      b.createString(order.id),
      b.createString(order.state),
      b.createString(order.rail),
      b.createString(order.provider),
      order.amount,
      b.createString(order.currency),
      order.account_id,
      payer,
      order.chips,
      b.createString(order.refund_id ?? ''),
      order.refund_hold !== null,
    ),
  );
}
