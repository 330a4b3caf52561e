import type { Translator } from '@wordgame/i18n';
import { ApiError, call } from '../api/client.js';
import type { OrderJson } from '../api/types.js';
import { el, replace } from '../ui/dom.js';
import { amount, errorText } from '../ui/words.js';

/** How often an order's state is asked for, and for how long at most (the order lifetime is 30 minutes). */
export const POLL_MS = 1_000;
const POLL_LIMIT_MS = 35 * 60_000;

/**
 * Shows one order's progress in `region` (`data-state` = the order's state) and polls it until it is
 * paid or failed; `onSettled` runs once then. Returns a function that stops the polling.
 */
export function trackOrder(
  t: Translator,
  token: string,
  orderId: string,
  region: HTMLElement,
  onSettled: (order: OrderJson | null) => void,
  extra?: Node,
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const started = Date.now();
  const show = (state: string, text: string) => {
    region.dataset['state'] = state;
    region.dataset['order'] = orderId;
    replace(region, el('span', {}, text), state === 'pending' || state === 'expired' ? extra : undefined);
  };
  show('pending', t.t('wallet.order_pending', { order: short(orderId) }));
  const tick = async () => {
    if (stopped) return;
    try {
      const order = await call<OrderJson>(`/user/wallet/orders/${encodeURIComponent(orderId)}`, { token });
      if (stopped) return;
      if (order.state === 'paid') {
        show('paid', t.t('wallet.order_paid', { order: short(orderId), chips: amount(order.chips, t.language) }));
        return onSettled(order);
      }
      if (order.state === 'failed') {
        show('failed', t.t('wallet.order_failed', { order: short(orderId), reason: order.failure_reason ?? '' }));
        return onSettled(order);
      }
      if (order.state === 'expired') show('expired', t.t('wallet.order_expired', { order: short(orderId) }));
    } catch (err: unknown) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 400)) {
        show('unknown', t.t('wallet.order_unknown'));
        return onSettled(null);
      }
      region.dataset['error'] = errorText(t, err);
    }
    if (Date.now() - started < POLL_LIMIT_MS) timer = setTimeout(() => void tick(), POLL_MS);
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** The first block of an order id: enough for a player to tell orders apart. */
function short(orderId: string): string {
  return orderId.slice(0, 8);
}
