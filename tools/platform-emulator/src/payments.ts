import { randomBytes } from 'node:crypto';
import type { Logger } from '@wordgame/logging';
import { ApiError, ControlError, badRequest } from './errors.js';
import type { BotRecord, PaymentRecord, PreCheckoutRecord, World } from './state.js';
import { newChargeId, startSubscription, successfulPaymentOf } from './subscriptions.js';
import type { TgMessage } from './types.js';

/** Telegram's answer to a pre-checkout query answered after its deadline. */
export const QUERY_TOO_OLD = 'query is too old and response timeout expired or query ID is invalid';

/** The outcome of starting a payment from the control API. */
export interface PayResult {
  preCheckoutQueryId: string;
  /** The pre_checkout_query's update id, absent if the bot's allowed_updates excluded it. */
  updateId?: number;
}

/** A new invoice link in Telegram's form, `https://t.me/$<slug>`. */
export function newInvoiceLink(): string {
  return `https://t.me/$${randomBytes(18).toString('base64url')}`;
}

/**
 * The Stars payment flow: a user "pays" an invoice link, the bot gets a `pre_checkout_query` and
 * must answer within the deadline (10 s at Telegram); ok=true completes the payment with a
 * `successful_payment` message, ok=false or no answer completes nothing.
 */
export class Payments {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly world: World,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** Starts paying invoice `link` as `userId`: queues the pre_checkout_query to the invoice's bot. */
  pay(link: string, userId: number): PayResult {
    const invoice = this.world.invoices.get(link);
    if (!invoice) throw new ControlError(404, `no invoice with link ${link}`);
    const user = this.world.users.get(userId)?.user;
    if (!user) throw new ControlError(404, `no user ${userId}`);
    const bot = this.world.botById(invoice.botId);
    if (!bot) throw new ControlError(404, `the bot of invoice ${link} is gone`);
    const id = this.newQueryId();
    const record: PreCheckoutRecord = {
      id,
      botId: bot.user.id,
      link,
      userId,
      currency: invoice.currency,
      totalAmount: invoice.amount,
      payload: invoice.payload,
      status: 'pending',
      createdAt: new Date().toISOString(),
    };
    this.world.preCheckouts.set(id, record);
    const timer = setTimeout(() => this.expire(id), this.timeoutMs);
    timer.unref();
    this.timers.set(id, timer);
    const queued = bot.queue.enqueue({
      pre_checkout_query: {
        id,
        from: user,
        currency: invoice.currency,
        total_amount: invoice.amount,
        invoice_payload: invoice.payload,
      },
    });
    this.logger.info({ preCheckoutQueryId: id, userId, amount: invoice.amount }, 'pre_checkout_query sent');
    return queued.queued ? { preCheckoutQueryId: id, updateId: queued.update_id } : { preCheckoutQueryId: id };
  }

  /**
   * The bot's answerPreCheckoutQuery. Unknown, foreign or already answered ids fail with
   * QUERY_ID_INVALID, an expired one with Telegram's "query is too old" text.
   */
  answer(bot: BotRecord, id: string, ok: boolean, errorMessage: string | undefined): void {
    const record = this.world.preCheckouts.get(id);
    if (!record || record.botId !== bot.user.id) throw badRequest('QUERY_ID_INVALID');
    if (record.status === 'expired') throw badRequest(QUERY_TOO_OLD);
    if (record.status !== 'pending') throw badRequest('QUERY_ID_INVALID');
    this.clearTimer(id);
    record.answeredAt = new Date().toISOString();
    if (!ok) {
      record.status = 'rejected';
      if (errorMessage !== undefined) record.errorMessage = errorMessage;
      this.logger.info({ preCheckoutQueryId: id }, 'pre_checkout_query rejected by the bot');
      return;
    }
    record.status = 'approved';
    this.complete(bot, record);
  }

  /**
   * The bot's refundStarPayment: returns the charge's stars to its payer, once. A charge this bot
   * never received, or one paid by another user, is CHARGE_NOT_FOUND; a charge refunded before is
   * CHARGE_ALREADY_REFUNDED (Telegram's text), so a repeated refund never pays twice.
   */
  refund(bot: BotRecord, userId: number, chargeId: string): void {
    const payment = this.world.payments.find((p) => p.telegramPaymentChargeId === chargeId);
    if (!payment || payment.botId !== bot.user.id || payment.userId !== userId) throw badRequest('CHARGE_NOT_FOUND');
    if (payment.refundedAt !== undefined) throw badRequest('CHARGE_ALREADY_REFUNDED');
    payment.refundedAt = this.world.nowIso();
    this.logger.info({ chargeId, userId, amount: payment.totalAmount }, 'star payment refunded');
  }

  /** Cancels every deadline (reset and stop). */
  clearTimers(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * Completes an approved payment at the emulated clock's time: a new charge, a successful_payment
   * message to the bot, and for an invoice with `subscription_period` a new subscription whose first
   * charge this is (is_recurring, is_first_recurring, subscription_expiration_date = now + period).
   */
  private complete(bot: BotRecord, record: PreCheckoutRecord): void {
    const user = this.world.users.get(record.userId)?.user;
    const invoice = this.world.invoices.get(record.link);
    if (!user || !invoice) throw new ApiError(500, 'Internal Server Error: payment lost its user or invoice');
    const chargeId = newChargeId();
    record.telegramPaymentChargeId = chargeId;
    const paidAt = this.world.now();
    const payment: PaymentRecord = {
      telegramPaymentChargeId: chargeId,
      preCheckoutQueryId: record.id,
      botId: bot.user.id,
      userId: user.id,
      link: record.link,
      payload: record.payload,
      currency: record.currency,
      totalAmount: record.totalAmount,
      at: this.world.nowIso(),
    };
    this.world.payments.push(payment);
    const subscription =
      invoice.subscriptionPeriod === undefined ? undefined : startSubscription(this.world, payment, invoice.subscriptionPeriod, paidAt);
    const message: TgMessage = {
      message_id: this.world.nextMessageId(user.id),
      from: user,
      date: paidAt,
      chat: this.world.privateChat(user),
      successful_payment: successfulPaymentOf(payment, subscription && { first: true, expiresAt: subscription.expiresAt }),
    };
    this.world.messages.push({ chatId: user.id, direction: 'to_bot', botId: bot.user.id, message });
    bot.queue.enqueue({ message });
    this.logger.info({ preCheckoutQueryId: record.id, chargeId, subscription: subscription?.id }, 'payment completed');
  }

  private expire(id: string): void {
    this.timers.delete(id);
    const record = this.world.preCheckouts.get(id);
    if (record?.status !== 'pending') return;
    record.status = 'expired';
    this.logger.info({ preCheckoutQueryId: id }, 'pre_checkout_query expired unanswered');
  }

  private clearTimer(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }

  private newQueryId(): string {
    for (;;) {
      const id = (randomBytes(8).readBigUInt64BE() >> 2n).toString();
      if (!this.world.preCheckouts.has(id)) return id;
    }
  }
}
