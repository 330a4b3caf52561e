import { z } from 'zod';
import { bigintString, isoTime, type Wire } from '../wire.js';
import type { OrderJson, RefundJson } from './codec.js';

/** Order ids as the backend writes them: lower-case uuids. */
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

/** An order; amount in minor units of `currency` (XTR: whole stars), chips credited when paid. */
export const orderWire = z
  .object({
    order_id: uuid,
    product_id: bigintString,
    title: z.string(),
    rail: z.string(),
    provider: z.string(),
    state: z.enum(['pending', 'paid', 'failed', 'expired']),
    amount: bigintString,
    currency: z.string(),
    chips: bigintString,
    created_at: isoTime,
    expires_at: isoTime,
    paid_at: isoTime,
    invoice_link: z.string().nullable(),
    confirmation_url: z.string().nullable(),
    failure_reason: z.string().nullable(),
    refunded: z.boolean(),
  })
  .strict()
  .meta({ title: 'Order' }) satisfies z.ZodType<Wire<OrderJson>>;

/** The caller's orders, newest first. */
export const orderListWire = z
  .object({ orders: z.array(orderWire) })
  .strict()
  .meta({ title: 'OrderList' }) satisfies z.ZodType<{ orders: Wire<OrderJson[]> }>;

/** An operator refund: succeeded (recorded), pending (press again) or canceled (refused, nothing recorded). */
export const refundWire = z
  .object({
    order_id: uuid,
    status: z.enum(['succeeded', 'pending', 'canceled']),
    refund_id: z.string().nullable(),
    amount: bigintString,
    currency: z.string(),
  })
  .strict()
  .meta({ title: 'Refund' }) satisfies z.ZodType<Wire<RefundJson>>;
