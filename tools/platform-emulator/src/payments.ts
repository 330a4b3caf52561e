import { randomBytes } from 'node:crypto';
import type { Logger } from '@wordgame/logging';
import { ApiError, ControlError, badRequest } from './errors.js';
import type { BotRecord, InvoiceRecord, PreCheckoutRecord, World } from './state.js';
import { unixNow } from './state.js';
import type { TgMessage, TgSuccessfulPayment } from './types.js';

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
    payment.refundedAt = new Date().toISOString();
    this.logger.info({ chargeId, userId, amount: payment.totalAmount }, 'star payment refunded');
  }

  /** Cancels every deadline (reset and stop). */
  clearTimers(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private complete(bot: BotRecord, record: PreCheckoutRecord): void {
    const user = this.world.users.get(record.userId)?.user;
    const invoice = this.world.invoices.get(record.link);
    if (!user || !invoice) throw new ApiError(500, 'Internal Server Error: payment lost its user or invoice');
    const chargeId = `stx${randomBytes(24).toString('base64url')}`;
    record.telegramPaymentChargeId = chargeId;
    const message: TgMessage = {
      message_id: this.world.nextMessageId(user.id),
      from: user,
      date: unixNow(),
      chat: this.world.privateChat(user),
      successful_payment: successfulPayment(record, invoice, chargeId),
    };
    this.world.payments.push({
      telegramPaymentChargeId: chargeId,
      preCheckoutQueryId: record.id,
      botId: bot.user.id,
      userId: user.id,
      link: record.link,
      payload: record.payload,
      currency: record.currency,
      totalAmount: record.totalAmount,
      at: new Date().toISOString(),
    });
    this.world.messages.push({ chatId: user.id, direction: 'to_bot', botId: bot.user.id, message });
    bot.queue.enqueue({ message });
    this.logger.info({ preCheckoutQueryId: record.id, chargeId }, 'payment completed');
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

function successfulPayment(record: PreCheckoutRecord, invoice: InvoiceRecord, chargeId: string): TgSuccessfulPayment {
  const payment: TgSuccessfulPayment = {
    currency: record.currency,
    total_amount: record.totalAmount,
    invoice_payload: record.payload,
    telegram_payment_charge_id: chargeId,
    provider_payment_charge_id: '',
  };
  if (invoice.subscriptionPeriod !== undefined) {
    payment.subscription_expiration_date = unixNow() + invoice.subscriptionPeriod;
    payment.is_recurring = true;
    payment.is_first_recurring = true;
  }
  return payment;
}
