import { randomBytes } from 'node:crypto';
import { ControlError } from './errors.js';
import type { PaymentRecord, World } from './state.js';
import type { StarTransaction, TransactionPartnerUser } from '@grammyjs/types';
import type { TgMessage, TgUser } from './types.js';
import type { EnqueueResult } from './updates.js';

/** https://core.telegram.org/bots/api#transactionpartneruser (published type). */
export type TgTransactionPartnerUser = TransactionPartnerUser;

/**
 * https://core.telegram.org/bots/api#startransaction (published type), narrowed to what the
 * emulator produces: incoming user payments carry `source`, refunds to a user carry `receiver`,
 * both a TransactionPartnerUser; `id` is the charge id for both. Assignable to StarTransaction.
 */
export type TgStarTransaction = Omit<StarTransaction, 'source' | 'receiver'> & {
  source?: TransactionPartnerUser;
  receiver?: TransactionPartnerUser;
};

interface Entry {
  at: string;
  seq: number;
  transaction: TgStarTransaction;
}

/**
 * The bot's Stars transactions as getStarTransactions reports them, in `world.starOrder` (default
 * chronological, as documented): one incoming transaction per completed payment (source = the
 * payer, with the invoice payload, and for a subscription's charge its `subscription_period`) and one outgoing per refund (receiver = the payer, same id as the
 * refunded charge). Equal dates keep one stable order (the time in ms, then the order recorded), so
 * paging the same list twice gives the same sequence.
 */
export function starTransactions(world: World, botId: number): TgStarTransaction[] {
  const entries: Entry[] = [];
  world.payments.forEach((p, index) => {
    if (p.botId !== botId) return;
    const user = userOf(world, p.userId);
    entries.push({
      at: p.at,
      seq: index * 2,
      transaction: {
        id: p.telegramPaymentChargeId,
        amount: p.totalAmount,
        date: unix(p.at),
        source: {
          type: 'user',
          transaction_type: 'invoice_payment',
          user,
          invoice_payload: p.payload,
          ...(p.subscriptionPeriod === undefined ? {} : { subscription_period: p.subscriptionPeriod }),
        },
      },
    });
    if (p.refundedAt !== undefined) {
      entries.push({
        at: p.refundedAt,
        seq: index * 2 + 1,
        transaction: {
          id: p.telegramPaymentChargeId,
          amount: p.totalAmount,
          date: unix(p.refundedAt),
          receiver: { type: 'user', transaction_type: 'invoice_payment', user },
        },
      });
    }
  });
  entries.sort((a, b) => a.at.localeCompare(b.at) || a.seq - b.seq);
  if (world.starOrder === 'newest_first') entries.reverse();
  return entries.map((e) => structuredClone(e.transaction));
}

/**
 * Control: a Stars charge the platform took that the bot was never told of (no successful_payment
 * reaches it): money taken, nothing credited. `date` (unix seconds, default now) backdates it, so
 * tests can build a long history or many transactions in one second. Returns the new charge id.
 */
export function unforwardedCharge(
  world: World,
  input: { botId: number; userId: number; amount: number; payload: string; date?: number },
): string {
  if (!world.users.has(input.userId)) throw new ControlError(404, `no user ${input.userId}`);
  const chargeId = `stx${randomBytes(24).toString('base64url')}`;
  world.payments.push({
    telegramPaymentChargeId: chargeId,
    preCheckoutQueryId: '',
    botId: input.botId,
    userId: input.userId,
    link: '',
    payload: input.payload,
    currency: 'XTR',
    totalAmount: input.amount,
    at: input.date === undefined ? world.nowIso() : new Date(input.date * 1000).toISOString(),
  });
  return chargeId;
}

/** Control: the platform refunds a charge on its own (the bot never asked). */
export function platformRefund(world: World, chargeId: string): void {
  const payment = chargeOf(world, chargeId);
  if (payment.refundedAt !== undefined) throw new ControlError(409, `charge ${chargeId} is refunded already`);
  payment.refundedAt = world.nowIso();
}

/**
 * Control: a refund made outside the bot, as Telegram support makes one: the charge is refunded
 * (getStarTransactions lists the refund, as after refundStarPayment) and its bot is sent Telegram's
 * `refunded_payment` service message (RefundedPayment: XTR, the amount, the invoice payload, the
 * charge id) in the payer's private chat. A charge refunded before is a 409 and sends nothing.
 */
export function supportRefund(world: World, chargeId: string): { message: TgMessage; update: EnqueueResult } {
  const payment = chargeOf(world, chargeId);
  if (payment.refundedAt !== undefined) throw new ControlError(409, `charge ${chargeId} is refunded already`);
  const bot = world.botById(payment.botId);
  if (!bot) throw new ControlError(404, `the bot of charge ${chargeId} is gone`);
  payment.refundedAt = world.nowIso();
  const user = userOf(world, payment.userId);
  const message: TgMessage = {
    message_id: world.nextMessageId(user.id),
    from: user,
    date: world.now(),
    chat: world.privateChat(user),
    refunded_payment: {
      currency: payment.currency,
      total_amount: payment.totalAmount,
      invoice_payload: payment.payload,
      telegram_payment_charge_id: payment.telegramPaymentChargeId,
      provider_payment_charge_id: '',
    },
  };
  world.messages.push({ chatId: user.id, direction: 'to_bot', botId: bot.user.id, message });
  return { message: structuredClone(message), update: bot.queue.enqueue({ message }) };
}

/** Control: the platform now reports another amount for a charge. */
export function alterCharge(world: World, chargeId: string, amount: number): void {
  chargeOf(world, chargeId).totalAmount = amount;
}

/** Control: the platform forgets a charge (credited by the merchant, never taken). */
export function forgetCharge(world: World, chargeId: string): void {
  const index = world.payments.findIndex((p) => p.telegramPaymentChargeId === chargeId);
  if (index < 0) throw new ControlError(404, `no charge ${chargeId}`);
  world.payments.splice(index, 1);
}

function chargeOf(world: World, chargeId: string): PaymentRecord {
  const payment = world.payments.find((p) => p.telegramPaymentChargeId === chargeId);
  if (!payment) throw new ControlError(404, `no charge ${chargeId}`);
  return payment;
}

function userOf(world: World, userId: number): TgUser {
  return world.users.get(userId)?.user ?? { id: userId, is_bot: false, first_name: 'Deleted Account' };
}

function unix(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}
