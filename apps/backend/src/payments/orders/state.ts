import type { OrderState } from '../payments.table.js';

/**
 * Order lifecycle (both rails):
 *
 *   pending --(30 min pass; reaper)--------------------------------> expired
 *   pending | expired --(confirmed payment: ForwardPayment with a
 *       matching amount, or the provider's re-read "succeeded")----> paid      (credited exactly once)
 *   pending | expired --(provider re-read "canceled", or the
 *       provider rejected the payment at creation)-----------------> failed    (terminal; customer told)
 *   paid --(full refund recorded)---------------------------------> paid, refund_id set (reversed once)
 *
 * `expired` is honoured-expired: the customer no longer gets a fresh invoice/confirmation for it,
 * but a payment that still arrives credits it. `paid` and `failed` are terminal. Crediting is one
 * conditional UPDATE (`state in ('pending','expired')`) in the same transaction as the wallet credit
 * and the ledger row, so no race can credit twice; a second confirmation finds the order paid.
 * The creditable states are this lifecycle's rule; the ledger's credit statement takes them
 * (orders/credit.ts binds them once).
 */

/** States a confirmed payment may still credit; an expired order is still credited when its payment arrives late. */
export const CREDITABLE_STATES: readonly OrderState[] = ['pending', 'expired'];

/** How long a customer may take to pay before the order becomes honoured-expired. */
export const ORDER_LIFETIME_MS = 30 * 60_000;

/** A card order this old with a provider payment id is re-checked by the reaper (lost notification). */
export const RECHECK_AGE_MS = 60_000;

/** The stars rail's provider name on orders and ledger rows. */
export const STARS_PROVIDER = 'telegram_stars';

/** Whether an order in this state is one a confirmed payment may still credit. */
export function isCreditable(state: OrderState): boolean {
  return CREDITABLE_STATES.includes(state);
}
