import { decodeTable, fb } from '@wordgame/contracts';
import { isoFromUnix } from '../fbs-read.js';

/**
 * A stars subscription (the monthly pass) as JSON: `state` active (renews at `paid_until`),
 * cancelled (a pass to `paid_until`, then ends) or expired; amount in whole stars per period.
 */
export interface SubscriptionJson {
  id: bigint;
  product_id: bigint;
  title: string;
  state: string;
  paid_until: string | null;
  /** When active: the next renewal (= paid_until); otherwise null. */
  next_renewal: string | null;
  cancelled_at: string | null;
  amount: bigint;
  currency: string;
  period_seconds: bigint;
  periods: number;
}

function subscriptionOf(t: InstanceType<typeof fb.SubscriptionView>): SubscriptionJson {
  const state = t.state() ?? '';
  const paidUntil = isoFromUnix(t.paidUntilUnix());
  return {
    id: t.id(),
    product_id: t.productId(),
    title: t.title() ?? '',
    state,
    paid_until: paidUntil,
    next_renewal: state === 'active' ? paidUntil : null,
    cancelled_at: isoFromUnix(t.cancelledAtUnix()),
    amount: t.amount(),
    currency: t.currency() ?? '',
    period_seconds: t.periodSeconds(),
    periods: t.periods(),
  };
}

/** Decodes a SubscriptionView body. */
export function readSubscription(body: Uint8Array): SubscriptionJson {
  return decodeTable(body, (bb) => fb.SubscriptionView.getRootAsSubscriptionView(bb), subscriptionOf);
}

/** Decodes a SubscriptionList body. */
export function readSubscriptionList(body: Uint8Array): SubscriptionJson[] {
  return decodeTable(
    body,
    (bb) => fb.SubscriptionList.getRootAsSubscriptionList(bb),
    (t) => {
      const out: SubscriptionJson[] = [];
      for (let i = 0; i < t.subscriptionsLength(); i += 1) {
        const s = t.subscriptions(i);
        if (s) out.push(subscriptionOf(s));
      }
      return out;
    },
  );
}
