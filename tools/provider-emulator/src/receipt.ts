import { z } from 'zod';
import { invalidRequest } from './errors.js';
import { lineTotal, parseQuantityMilli } from './money.js';
import { amountSchema, minorOf } from './validation.js';

const itemSchema = z.object({
  description: z.string({ error: 'is required' }).min(1, 'must not be empty').max(128),
  quantity: z
    .union([z.string(), z.number()], { error: 'is required' })
    .refine((q) => (parseQuantityMilli(q) ?? 0n) > 0n, 'must be a positive number with at most three decimals'),
  amount: amountSchema,
  vat_code: z.number({ error: 'is required (1-12)' }).int().min(1).max(12),
  payment_subject: z.string().optional(),
  payment_mode: z.string().optional(),
});

/**
 * The basic shape of a 54-FZ receipt (`receipt`) YooKassa checks: a customer reachable by email or
 * phone, and 1-100 items each with description, quantity, amount and vat_code.
 */
export const receiptSchema = z
  .object({
    customer: z
      .object({
        full_name: z.string().optional(),
        inn: z.string().optional(),
        email: z.email('must be an email address').optional(),
        phone: z
          .string()
          .regex(/^\+?\d{11,15}$/, 'must be a phone number in ITU-T E.164 format')
          .optional(),
      })
      .optional(),
    email: z.email('must be an email address').optional(),
    phone: z
      .string()
      .regex(/^\+?\d{11,15}$/, 'must be a phone number in ITU-T E.164 format')
      .optional(),
    items: z.array(itemSchema, { error: 'is required' }).min(1, 'must have at least one item').max(100),
    tax_system_code: z.number().int().min(1).max(6).optional(),
  })
  .refine((r) => Boolean(r.customer?.email ?? r.customer?.phone ?? r.email ?? r.phone), {
    message: 'customer.email or customer.phone is required',
    path: ['customer'],
  });

/** A validated receipt. */
export type Receipt = z.infer<typeof receiptSchema>;

/**
 * Checks that the receipt's items add up to the amount being paid or refunded, in its currency,
 * as YooKassa does (400 invalid_request on `receipt.items` otherwise).
 */
export function checkReceiptTotal(receipt: Receipt, amountMinor: bigint, currency: string, parameter: string): void {
  let total = 0n;
  for (const [index, item] of receipt.items.entries()) {
    if (item.amount.currency !== currency) {
      throw invalidRequest(`receipt item currency must be ${currency}`, `${parameter}.items[${index}].amount.currency`);
    }
    total += lineTotal(minorOf(item.amount), parseQuantityMilli(item.quantity) ?? 0n);
  }
  if (total !== amountMinor) {
    throw invalidRequest('the sum of the receipt items does not match the amount', `${parameter}.items`);
  }
}
