import { z } from 'zod';
import { bigintString, isoTime, type Wire } from '../wire.js';
import type { SubscriptionJson } from './codec.js';

/** A stars subscription (the monthly pass); amount in whole stars per period. */
export const subscriptionWire = z
  .object({
    id: bigintString,
    product_id: bigintString,
    title: z.string(),
    state: z.enum(['active', 'cancelled', 'expired']),
    paid_until: isoTime,
    next_renewal: isoTime,
    cancelled_at: isoTime,
    amount: bigintString,
    currency: z.string(),
    period_seconds: bigintString,
    periods: z.number().int(),
  })
  .strict()
  .meta({ title: 'Subscription' }) satisfies z.ZodType<Wire<SubscriptionJson>>;

/** The caller's subscriptions, newest first. */
export const subscriptionListWire = z
  .object({ subscriptions: z.array(subscriptionWire) })
  .strict()
  .meta({ title: 'SubscriptionList' }) satisfies z.ZodType<{ subscriptions: Wire<SubscriptionJson[]> }>;
