import { randomBytes } from 'node:crypto';
import { ControlError, badRequest } from './errors.js';
import type { BotRecord, PaymentRecord, SubscriptionRecord, World } from './state.js';
import type { TgMessage, TgSuccessfulPayment } from './types.js';

/** Telegram's only accepted subscription period (30 days), in seconds. */
export const SUBSCRIPTION_PERIOD = 2_592_000;

/** The reason a renewal fails when the control API says so without another one (the user's stars ran out). */
export const DEFAULT_RENEWAL_FAILURE = 'insufficient stars';

/** A subscription as the control API shows it. */
export type SubscriptionView = SubscriptionRecord;

/** What one clock advance did: the renewals sent (new charge ids) and the subscriptions that expired. */
export interface ClockAdvance {
  /** The emulated clock after the advance, unix seconds. */
  now: number;
  renewals: Array<{ subscriptionId: string; telegramPaymentChargeId: string; expiresAt: number }>;
  expired: Array<{ subscriptionId: string; reason: string }>;
}

/** A new Stars charge id in the emulator's form. */
export function newChargeId(): string {
  return `stx${randomBytes(24).toString('base64url')}`;
}

/**
 * The successful_payment of a charge: every Stars payment's fields, and for a subscription's
 * charge `is_recurring`, `is_first_recurring` (its first charge only) and
 * `subscription_expiration_date` (unix seconds when the period this charge pays for ends), as the
 * Bot API's SuccessfulPayment documents them.
 */
export function successfulPaymentOf(
  payment: Pick<PaymentRecord, 'currency' | 'totalAmount' | 'payload' | 'telegramPaymentChargeId'>,
  subscription?: { first: boolean; expiresAt: number },
): TgSuccessfulPayment {
  const paid: TgSuccessfulPayment = {
    currency: payment.currency,
    total_amount: payment.totalAmount,
    invoice_payload: payment.payload,
    telegram_payment_charge_id: payment.telegramPaymentChargeId,
    provider_payment_charge_id: '',
  };
  if (subscription) {
    paid.subscription_expiration_date = subscription.expiresAt;
    paid.is_recurring = true;
    if (subscription.first) paid.is_first_recurring = true;
  }
  return paid;
}

/** Starts a subscription on its first charge (paid at `paidAt`, unix seconds): active until paidAt + period. */
export function startSubscription(world: World, payment: PaymentRecord, period: number, paidAt: number): SubscriptionRecord {
  const record: SubscriptionRecord = {
    id: payment.telegramPaymentChargeId,
    botId: payment.botId,
    userId: payment.userId,
    link: payment.link,
    payload: payment.payload,
    currency: payment.currency,
    amount: payment.totalAmount,
    period,
    chargeIds: [payment.telegramPaymentChargeId],
    startedAt: paidAt,
    expiresAt: paidAt + period,
    canceled: false,
    status: 'active',
  };
  payment.subscriptionPeriod = period;
  payment.subscriptionId = record.id;
  world.subscriptions.set(record.id, record);
  return record;
}

/** The subscription one of whose charges is `chargeId`, if any. */
export function subscriptionOfCharge(world: World, chargeId: string): SubscriptionRecord | undefined {
  const direct = world.subscriptions.get(chargeId);
  if (direct) return direct;
  for (const sub of world.subscriptions.values()) if (sub.chargeIds.includes(chargeId)) return sub;
  return undefined;
}

/**
 * editUserStarSubscription: `isCanceled` true stops the subscription's extension (it stays active to
 * the end of the paid period, then expires), false re-enables it. Idempotent. `chargeId` may be
 * any of the subscription's charges. A charge this bot never received from that user, or one that
 * is no subscription's, is CHARGE_NOT_FOUND (as refundStarPayment answers an unknown charge); a
 * subscription whose period already ended is SUBSCRIPTION_EXPIRED (nothing left to cancel or extend).
 */
export function editSubscription(world: World, bot: BotRecord, userId: number, chargeId: string, isCanceled: boolean): void {
  const sub = subscriptionOfCharge(world, chargeId);
  if (!sub || sub.botId !== bot.user.id || sub.userId !== userId) throw badRequest('CHARGE_NOT_FOUND');
  if (sub.status === 'expired') throw badRequest('SUBSCRIPTION_EXPIRED');
  sub.canceled = isCanceled;
}

/**
 * Control: the next renewal of the subscription holding `chargeId` fails (`reason`, default the
 * user's stars ran out): at its expiry it ends instead of renewing, with no update, as at Telegram.
 */
export function failNextRenewal(world: World, chargeId: string, reason = DEFAULT_RENEWAL_FAILURE): SubscriptionView {
  const sub = subscriptionOfCharge(world, chargeId);
  if (!sub) throw new ControlError(404, `no subscription with charge ${chargeId}`);
  if (sub.status === 'expired') throw new ControlError(409, `subscription ${sub.id} has expired`);
  sub.failNextRenewal = reason;
  return structuredClone(sub);
}

/**
 * Runs every subscription whose paid period ended by the emulated clock: a cancelled one, or one
 * whose renewal is set to fail, expires (no update); any other renews at its expiry instant, once
 * per period passed: a new charge (a payment getStarTransactions lists with the subscription's
 * period) and a successful_payment message to the bot with `is_recurring`, no
 * `is_first_recurring`, a new charge id, the same payload and the next expiration (old + period).
 */
export function runDueSubscriptions(world: World): Omit<ClockAdvance, 'now'> {
  const now = world.now();
  const result: Omit<ClockAdvance, 'now'> = { renewals: [], expired: [] };
  for (const sub of world.subscriptions.values()) {
    while (sub.status === 'active' && sub.expiresAt <= now) {
      const failure = sub.canceled ? 'canceled' : sub.failNextRenewal;
      if (failure !== undefined) {
        sub.status = 'expired';
        sub.endReason = failure;
        delete sub.failNextRenewal;
        result.expired.push({ subscriptionId: sub.id, reason: failure });
        break;
      }
      const chargeId = renew(world, sub);
      result.renewals.push({ subscriptionId: sub.id, telegramPaymentChargeId: chargeId, expiresAt: sub.expiresAt });
    }
  }
  return result;
}

/** Control: moves the emulated clock `seconds` on and runs what became due (see runDueSubscriptions). */
export function advanceClock(world: World, seconds: number): ClockAdvance {
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new ControlError(400, 'seconds must be a whole number of seconds, 0 or more');
  world.clockOffsetSeconds += seconds;
  return { now: world.now(), ...runDueSubscriptions(world) };
}

function renew(world: World, sub: SubscriptionRecord): string {
  const renewedAt = sub.expiresAt;
  const chargeId = newChargeId();
  const payment: PaymentRecord = {
    telegramPaymentChargeId: chargeId,
    preCheckoutQueryId: '',
    botId: sub.botId,
    userId: sub.userId,
    link: sub.link,
    payload: sub.payload,
    currency: sub.currency,
    totalAmount: sub.amount,
    at: new Date(renewedAt * 1000).toISOString(),
    subscriptionPeriod: sub.period,
    subscriptionId: sub.id,
  };
  world.payments.push(payment);
  sub.chargeIds.push(chargeId);
  sub.expiresAt = renewedAt + sub.period;
  const bot = world.botById(sub.botId);
  const user = world.users.get(sub.userId)?.user;
  if (bot && user) {
    const message: TgMessage = {
      message_id: world.nextMessageId(user.id),
      from: user,
      date: renewedAt,
      chat: world.privateChat(user),
      successful_payment: successfulPaymentOf(payment, { first: false, expiresAt: sub.expiresAt }),
    };
    world.messages.push({ chatId: user.id, direction: 'to_bot', botId: bot.user.id, message });
    bot.queue.enqueue({ message });
  }
  return chargeId;
}
