import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DB } from '../db/index.js';

/** An order's rail (payments.table.ts), read off the composed database type: metrics sit below payments. */
type OrderRail = DB['orders']['rail'];

/** Rails as label values (a closed set). */
export const RAILS: readonly OrderRail[] = ['stars', 'card'];

/** Reaper tick outcome counts (the reaper's TickReport, without importing it). */
export interface ReaperTickCounts {
  expired: number;
  rechecked: number;
  credited: number;
  failed: number;
  errors: number;
  /** Held refunds the provider had reported pending, re-read and found final (recorded, or canceled). */
  refunds_settled: number;
}

/** How one channel of a customer notice went (`sent`, `skipped`, a bot outcome, `failed`). */
export type NoticeChannel = 'bot' | 'email';

/** The provider object a notification names. */
export type RereadKind = 'payment' | 'refund';
/** Why a notification made no provider re-read: one was in flight here, or one started within the window. */
export type CoalesceReason = 'in_flight' | 'window';

/**
 * What the payment domain reports, by name rather than by metric object, so the domain code stays
 * free of prom-client: credits and refunds by rail, unmatched stars payments by reason, reaper
 * ticks, customer notices. Label values are closed sets; never an id.
 */
export interface PaymentMetrics {
  /** An order was credited (exactly once per order); `latencySeconds` = paid_at - created_at. */
  credited(rail: OrderRail, latencySeconds: number): void;
  /** A full refund of an order was recorded. */
  refunded(rail: OrderRail): void;
  /** A stars payment credited nothing and was recorded in unmatched_payments (reason: unknown_order, order_paid, order_failed, amount_mismatch). */
  unmatched(rail: OrderRail, reason: string): void;
  /** One reaper tick finished (`counts`) or failed (null). */
  reaperTick(counts: ReaperTickCounts | null, seconds: number): void;
  /** One channel of a customer notice (credit or failure) ended with `outcome`. */
  notice(kind: 'credited' | 'failed', channel: NoticeChannel, outcome: string): void;
  /** A provider notification was answered without a provider re-read of its object. */
  rereadCoalesced(kind: RereadKind, reason: CoalesceReason): void;
  /** Order creation (`order`) or wallet.buy (`chips`) refused a product: outside its offer window, or the player's purchase limit reached. */
  offerRefused(reason: OfferRefusal, path: 'order' | 'chips'): void;
  /** A credited order took its player past the product's purchase limit (credited anyway: money is conserved). */
  limitBreached(rail: OrderRail): void;
  /** A stars subscription's charge was credited (exactly once per charge): its first payment or a renewal. */
  subscriptionCharge(kind: SubscriptionChargeKind): void;
  /** A player's cancel or re-enable of a subscription ended with `outcome`. */
  subscriptionEdit(action: 'cancel' | 'enable', outcome: SubscriptionEditOutcome): void;
}

/** Why order creation refused a product of a time-limited offer or with a purchase limit. */
export type OfferRefusal = 'offer_not_available' | 'purchase_limit_reached';
const OFFER_REFUSALS: readonly OfferRefusal[] = ['offer_not_available', 'purchase_limit_reached'];

/** A subscription charge: the first payment or a renewal. */
export type SubscriptionChargeKind = 'first' | 'renewal';
/** What a cancel or re-enable did: changed it, nothing to change, the bot not reached, the platform refused, or refused here (expired, unknown). */
export type SubscriptionEditOutcome = 'done' | 'unchanged' | 'not_delivered' | 'failed' | 'refused';
const SUBSCRIPTION_EDIT_OUTCOMES: readonly SubscriptionEditOutcome[] = ['done', 'unchanged', 'not_delivered', 'failed', 'refused'];

const UNMATCHED_REASONS = ['unknown_order', 'order_paid', 'order_failed', 'amount_mismatch', 'unknown_subscription'];
const REAPER_OUTCOMES = ['expired', 'rechecked', 'credited', 'failed', 'errors', 'refunds_settled'] as const;

/** Registers the payment series on `registry`, every closed label set pre-created at zero. */
export function createPaymentMetrics(registry: Registry): PaymentMetrics {
  const registers = [registry];
  const credits = new Counter({
    name: 'backend_credits_total',
    help: 'Orders credited (chips and benefits granted), by rail; exactly once per order.',
    labelNames: ['rail'],
    registers,
  });
  const creditLatency = new Histogram({
    name: 'backend_credit_latency_seconds',
    help: 'Time from order creation to its credit, by rail (includes the customer paying).',
    labelNames: ['rail'],
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 21600, 86400],
    registers,
  });
  const refunds = new Counter({
    name: 'backend_refunds_total',
    help: 'Full order refunds recorded (reversal + ledger row), by rail.',
    labelNames: ['rail'],
    registers,
  });
  const unmatched = new Counter({
    name: 'backend_unmatched_payments_total',
    help: 'Payments that credited nothing and were recorded in unmatched_payments (returned to the payer automatically), by rail and reason.',
    labelNames: ['rail', 'reason'],
    registers,
  });
  const ticks = new Counter({
    name: 'backend_reaper_ticks_total',
    help: 'Reaper ticks, by outcome (ok, error: the tick threw and was logged).',
    labelNames: ['outcome'],
    registers,
  });
  const tickOrders = new Counter({
    name: 'backend_reaper_orders_total',
    help: 'What reaper ticks did to orders: expired, rechecked (provider re-read), credited, failed, errors (re-check failed; retried next tick), refunds_settled (a pending refund re-read and found final).',
    labelNames: ['outcome'],
    registers,
  });
  const tickDuration = new Histogram({
    name: 'backend_reaper_tick_duration_seconds',
    help: 'Duration of one reaper tick.',
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const lastTick = new Gauge({
    name: 'backend_reaper_last_tick_timestamp_seconds',
    help: 'Unix time the last reaper tick ended without throwing (0 before the first).',
    registers,
  });
  const notices = new Counter({
    name: 'backend_customer_notices_total',
    help: 'Customer notices about money (kind credited or failed) by channel (bot, email) and outcome (sent/delivered, skipped: the account has no such channel, failed, or the bot command outcome).',
    labelNames: ['kind', 'channel', 'outcome'],
    registers,
  });
  const coalesced = new Counter({
    name: 'backend_notification_rereads_coalesced_total',
    help: 'Provider notifications (and their trailing re-reads) that made no provider re-read of their payment or refund (kind), by reason: in_flight (a re-read of it was running on this replica and was shared), window (one started within PROVIDER_REREAD_WINDOW_MS on some replica; re-read once when the window ends).',
    labelNames: ['kind', 'reason'],
    registers,
  });
  const offerRefusals = new Counter({
    name: 'backend_offer_refusals_total',
    help: 'Purchases refused for an offer rule, by path (order: order creation on either rail; chips: wallet.buy) and reason: offer_not_available (outside the product window), purchase_limit_reached (the player reached the product limit for the period).',
    labelNames: ['path', 'reason'],
    registers,
  });
  const limitBreaches = new Counter({
    name: 'backend_purchase_limit_breaches_total',
    help: 'Credited orders that took their player past the product purchase limit (an order created before the limit was lowered, or a late charge), by rail; credited anyway, each logged with its order id.',
    labelNames: ['rail'],
    registers,
  });
  for (const path of ['order', 'chips']) for (const reason of OFFER_REFUSALS) offerRefusals.inc({ path, reason }, 0);
  const subscriptionCharges = new Counter({
    name: 'backend_subscription_charges_total',
    help: "Stars subscription charges credited, by kind (first: the subscription's first payment; renewal); exactly once per charge.",
    labelNames: ['kind'],
    registers,
  });
  const subscriptionEdits = new Counter({
    name: 'backend_subscription_edits_total',
    help: 'Players cancelling or re-enabling a stars subscription, by action (cancel, enable) and outcome (done, unchanged: already so, not_delivered: the bot was not reached, failed: the platform refused, refused: expired or unknown here).',
    labelNames: ['action', 'outcome'],
    registers,
  });
  for (const kind of ['first', 'renewal']) subscriptionCharges.inc({ kind }, 0);
  for (const action of ['cancel', 'enable'])
    for (const outcome of SUBSCRIPTION_EDIT_OUTCOMES) subscriptionEdits.inc({ action, outcome }, 0);
  for (const kind of ['payment', 'refund']) for (const reason of ['in_flight', 'window']) coalesced.inc({ kind, reason }, 0);
  for (const rail of RAILS) {
    credits.inc({ rail }, 0);
    refunds.inc({ rail }, 0);
    limitBreaches.inc({ rail }, 0);
  }
  for (const reason of UNMATCHED_REASONS) unmatched.inc({ rail: 'stars', reason }, 0);
  for (const outcome of ['ok', 'error']) ticks.inc({ outcome }, 0);
  for (const outcome of REAPER_OUTCOMES) tickOrders.inc({ outcome }, 0);
  lastTick.set(0);
  return {
    credited(rail, latencySeconds) {
      credits.inc({ rail });
      creditLatency.observe({ rail }, Math.max(0, latencySeconds));
    },
    refunded: (rail) => refunds.inc({ rail }),
    unmatched(rail, reason) {
      unmatched.inc({ rail, reason: UNMATCHED_REASONS.includes(reason) ? reason : 'other' });
    },
    reaperTick(counts, seconds) {
      tickDuration.observe(seconds);
      if (counts === null) {
        ticks.inc({ outcome: 'error' });
        return;
      }
      ticks.inc({ outcome: 'ok' });
      lastTick.setToCurrentTime();
      for (const outcome of REAPER_OUTCOMES) if (counts[outcome] > 0) tickOrders.inc({ outcome }, counts[outcome]);
    },
    notice: (kind, channel, outcome) => notices.inc({ kind, channel, outcome }),
    rereadCoalesced: (kind, reason) => coalesced.inc({ kind, reason }),
    offerRefused: (reason, path) => offerRefusals.inc({ path, reason }),
    limitBreached: (rail) => limitBreaches.inc({ rail }),
    subscriptionCharge: (kind) => subscriptionCharges.inc({ kind }),
    subscriptionEdit: (action, outcome) => subscriptionEdits.inc({ action, outcome }),
  };
}
