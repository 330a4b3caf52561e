import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { Language } from '@wordgame/i18n';
import type { DB } from '../db/index.js';
import type { BotCommands } from '../botcommands/index.js';
import type { PaymentMetrics } from '../metrics/index.js';
import { listProducts, textOf } from '../catalog/index.js';
import { DomainError, type Caller } from '../rpc/index.js';
import {
  setCancelled,
  subscriptionFigures,
  subscriptionOf,
  subscriptionsOf,
  type SubscriptionDayRow,
  type SubscriptionListing,
} from './subscriptions.store.js';

/** What the subscriptions feature works with; `now` is the backend's clock. */
export interface SubscriptionDeps {
  db: Kysely<DB>;
  logger: Logger;
  bot: Pick<BotCommands, 'editStarSubscription'>;
  /** Each cancel or re-enable's outcome, counted. */
  metrics: Pick<PaymentMetrics, 'subscriptionEdit'>;
  now(): Date;
}

/**
 * A pass's state at `now`, derived from time so the view is right at any moment: `expired` once
 * its latest paid period has ended (no renewal came, or its periods were refunded), else
 * `cancelled` when renewals are off (still a pass to the end of the period, as Telegram requires),
 * else `active`.
 */
export type PassState = 'active' | 'cancelled' | 'expired';

/** The state of a subscription at `now` (see PassState). */
export function passState(s: Pick<SubscriptionListing, 'paid_until' | 'cancelled_at'>, now: Date): PassState {
  if (s.paid_until.getTime() <= now.getTime()) return 'expired';
  return s.cancelled_at !== null ? 'cancelled' : 'active';
}

/** A subscription as the player's wallet shows it. */
export interface SubscriptionItem {
  id: bigint;
  productId: bigint;
  title: string;
  state: PassState;
  paidUntil: Date;
  cancelledAt: Date | null;
  amount: bigint;
  currency: string;
  periodSeconds: bigint;
  periods: number;
}

/** The platform's refusal to edit a subscription whose period already ended (editUserStarSubscription). */
const PLATFORM_EXPIRED = 'SUBSCRIPTION_EXPIRED';

/** Seconds of one stars subscription period (the only one the platform allows). */
const PERIOD_SECONDS = 2_592_000n;

async function itemsOf(deps: SubscriptionDeps, rows: SubscriptionListing[], language: Language): Promise<SubscriptionItem[]> {
  const ids = [...new Set(rows.map((r) => r.product_id))];
  const products = ids.length > 0 ? await listProducts(deps.db, { includeInactive: true, ids }) : [];
  const titles = new Map(products.map((p) => [p.id, textOf(p, language).title]));
  const now = deps.now();
  return rows.map((r) => ({
    id: r.id,
    productId: r.product_id,
    title: titles.get(r.product_id) ?? '',
    state: passState(r, now),
    paidUntil: r.paid_until,
    cancelledAt: r.cancelled_at,
    amount: r.amount,
    currency: r.currency,
    periodSeconds: PERIOD_SECONDS,
    periods: r.periods,
  }));
}

/** The caller's subscriptions, newest first, with titles in `language`. */
export async function listSubscriptions(deps: SubscriptionDeps, caller: Caller, language: Language): Promise<SubscriptionItem[]> {
  return itemsOf(deps, await subscriptionsOf(deps.db, caller.accountId), language);
}

/**
 * Cancels (`cancel`) or re-enables the caller's subscription `id`. Asking for the state it is in
 * changes nothing and sends nothing. Otherwise the bot is asked (edit_star_subscription, naming the
 * latest charge) and the state is recorded only when its Ack says delivered: an Ack with an error
 * answers `bot_delivery_failed` (the platform's SUBSCRIPTION_EXPIRED: `subscription_expired`), no
 * Ack `bot_unavailable`, and nothing changes. A subscription with no paid period left answers
 * `subscription_expired` (the platform has ended it; buying the pass again starts a new one);
 * another account's or an unknown id `unknown_subscription`.
 */
export async function editSubscription(
  deps: SubscriptionDeps,
  caller: Caller,
  id: bigint,
  cancel: boolean,
  language: Language,
): Promise<SubscriptionItem> {
  const action = cancel ? 'cancel' : 'enable';
  if (id <= 0n) throw new DomainError('invalid_subscription_id', 'the subscription id must be a positive integer');
  const found = await subscriptionOf(deps.db, caller.accountId, id);
  const now = deps.now();
  if (!found || passState(found, now) === 'expired') {
    deps.metrics.subscriptionEdit(action, 'refused');
    if (!found) throw new DomainError('unknown_subscription', 'no such subscription');
    throw new DomainError('subscription_expired', 'this subscription has no paid period left');
  }
  if ((found.cancelled_at !== null) === cancel) deps.metrics.subscriptionEdit(action, 'unchanged');
  else {
    const outcome = await deps.bot.editStarSubscription(found.platform_user_id, found.last_charge_id, cancel);
    if (outcome.status !== 'delivered') deps.metrics.subscriptionEdit(action, outcome.status === 'failed' ? 'failed' : 'not_delivered');
    if (outcome.status === 'failed' && outcome.error.includes(PLATFORM_EXPIRED)) {
      // The platform ended it before our clock saw its end: nothing to edit.
      throw new DomainError('subscription_expired', 'this subscription has ended on the platform');
    }
    if (outcome.status === 'failed') {
      deps.logger.warn({ subscriptionId: String(id), error: outcome.error.slice(0, 500) }, 'edit_star_subscription failed at the bot');
      throw new DomainError('bot_delivery_failed', 'the payment bot could not change the subscription; try again later');
    }
    if (outcome.status !== 'delivered') {
      deps.logger.warn({ subscriptionId: String(id), outcome: outcome.status }, 'edit_star_subscription not delivered');
      throw new DomainError('bot_unavailable', 'the payment bot is not reachable right now; try again shortly');
    }
    await setCancelled(deps.db, id, cancel ? now : null, now);
    deps.metrics.subscriptionEdit(action, 'done');
    deps.logger.info({ subscriptionId: String(id), cancel }, cancel ? 'subscription cancelled' : 'subscription re-enabled');
  }
  const after = await subscriptionOf(deps.db, caller.accountId, id);
  if (!after) throw new DomainError('unknown_subscription', 'no such subscription');
  const [item] = await itemsOf(deps, [after], language);
  if (!item) throw new DomainError('unknown_subscription', 'no such subscription');
  return item;
}

/** The console's figures: active subscriptions now and, per UTC day of the last `days`, first payments, renewals and cancellations. */
export async function figures(
  deps: SubscriptionDeps,
  days: number,
): Promise<{ active: bigint; activeCancelled: bigint; days: SubscriptionDayRow[] }> {
  const now = deps.now();
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * 86_400_000);
  return subscriptionFigures(deps.db, from, now);
}
