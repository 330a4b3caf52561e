import { boolArg, intArg, jsonArg, requiredStringArg, stringArg, userIdArg } from '../args.js';
import { badRequest } from '../errors.js';
import { newInvoiceLink } from '../payments.js';
import { starTransactions } from '../star-transactions.js';
import { SUBSCRIPTION_PERIOD, editSubscription } from '../subscriptions.js';
import type { MethodHandler } from './context.js';

/** Invoice options that do not exist for Telegram Stars; any of them set is STARS_INVOICE_INVALID. */
const FIAT_ONLY_FLAGS = [
  'need_name',
  'need_phone_number',
  'need_email',
  'need_shipping_address',
  'send_phone_number_to_provider',
  'send_email_to_provider',
  'is_flexible',
];

/** One LabeledPrice read from `prices`; anything malformed is Telegram's JSON parse error. */
function readPrices(value: unknown): { label: string; amount: number }[] {
  const parseError = badRequest("can't parse prices JSON object");
  if (!Array.isArray(value)) throw parseError;
  return value.map((item: unknown) => {
    if (typeof item !== 'object' || item === null) throw parseError;
    const { label, amount } = item as Record<string, unknown>;
    if (typeof label !== 'string' || typeof amount !== 'number' || !Number.isSafeInteger(amount)) throw parseError;
    return { label, amount };
  });
}

/**
 * createInvoiceLink for Telegram Stars only: title 1-32 characters, description 1-255, payload
 * 1-128 bytes, currency `XTR`, no provider token, exactly one positive integer price, no tips or
 * fiat-only options, `subscription_period` only 2592000 (and only with XTR, as the Bot API says; a
 * provider token is refused for any Stars invoice). Returns `https://t.me/$<slug>` and keeps
 * the invoice so the control API can pay it.
 */
export const createInvoiceLink: MethodHandler<'createInvoiceLink'> = ({ bot, params, world }) => {
  const title = requiredStringArg(params, 'title');
  const description = requiredStringArg(params, 'description');
  const payload = requiredStringArg(params, 'payload');
  const currency = requiredStringArg(params, 'currency');
  const prices = readPrices(jsonArg(params, 'prices', "can't parse prices JSON object"));
  if ([...title].length > 32) throw badRequest('INVOICE_TITLE_INVALID');
  if ([...description].length > 255) throw badRequest('INVOICE_DESCRIPTION_INVALID');
  if (Buffer.byteLength(payload) > 128) throw badRequest('INVOICE_PAYLOAD_INVALID');
  if (currency !== 'XTR') throw badRequest('CURRENCY_INVALID');
  if ((stringArg(params, 'provider_token') ?? '') !== '') throw badRequest('STARS_INVOICE_INVALID');
  const [price, ...more] = prices;
  if (price === undefined || more.length > 0) throw badRequest('STARS_INVOICE_INVALID');
  if (price.amount <= 0) throw badRequest('CURRENCY_TOTAL_AMOUNT_INVALID');
  const tips = jsonArg(params, 'suggested_tip_amounts', "can't parse suggested tip amounts JSON object");
  const hasTips = (intArg(params, 'max_tip_amount') ?? 0) !== 0 || (Array.isArray(tips) && tips.length > 0);
  if (hasTips || FIAT_ONLY_FLAGS.some((flag) => boolArg(params, flag))) throw badRequest('STARS_INVOICE_INVALID');
  const period = intArg(params, 'subscription_period');
  if (period !== undefined && period !== SUBSCRIPTION_PERIOD) throw badRequest('SUBSCRIPTION_PERIOD_INVALID');

  const link = newInvoiceLink();
  world.invoices.set(link, {
    link,
    botId: bot.user.id,
    title,
    description,
    payload,
    currency,
    amount: price.amount,
    ...(period === undefined ? {} : { subscriptionPeriod: period }),
    createdAt: new Date().toISOString(),
  });
  return link;
};

/**
 * answerPreCheckoutQuery: `error_message` is required when `ok` is false; the answer is recorded
 * and ok=true completes the payment. Unknown or already answered ids fail with QUERY_ID_INVALID,
 * ids past the deadline with "query is too old ...".
 */
export const answerPreCheckoutQuery: MethodHandler<'answerPreCheckoutQuery'> = ({ bot, params, payments }) => {
  const ok = boolArg(params, 'ok');
  const errorMessage = stringArg(params, 'error_message');
  if (!ok && (errorMessage === undefined || errorMessage === '')) {
    throw badRequest('parameter "error_message" is required');
  }
  payments.answer(bot, stringArg(params, 'pre_checkout_query_id') ?? '', ok, ok ? undefined : errorMessage);
  return true;
};

/**
 * refundStarPayment `{user_id, telegram_payment_charge_id}`: refunds a successful Stars payment
 * of that user to this bot and returns true. Unknown or foreign charges fail with
 * CHARGE_NOT_FOUND, a second refund with CHARGE_ALREADY_REFUNDED; a missing or non-positive
 * user_id and a missing charge id get the usual parameter errors.
 */
export const refundStarPayment: MethodHandler<'refundStarPayment'> = ({ bot, params, payments }) => {
  const userId = userIdArg(params);
  const chargeId = requiredStringArg(params, 'telegram_payment_charge_id');
  payments.refund(bot, userId, chargeId);
  return true;
};

/**
 * getStarTransactions `{offset?, limit?}`: the bot's Stars transactions in chronological order (the
 * Bot API's documented order; the control API can switch to newest first), skipping `offset` and
 * returning at most `limit` (1-100, default 100; values outside are clamped as Telegram does with
 * getUpdates). Answers a StarTransactions object `{transactions}`.
 */
export const getStarTransactions: MethodHandler<'getStarTransactions'> = ({ bot, params, world }) => {
  const offset = intArg(params, 'offset') ?? 0;
  const limit = intArg(params, 'limit') ?? 100;
  if (Number.isNaN(offset) || Number.isNaN(limit)) throw badRequest('invalid offset or limit specified');
  const from = Math.max(0, offset);
  return { transactions: starTransactions(world, bot.user.id).slice(from, from + Math.min(100, Math.max(1, limit))) };
};

/**
 * editUserStarSubscription `{user_id, telegram_payment_charge_id, is_canceled}`: cancels (true) or
 * re-enables (false) the extension of that user's Stars subscription and returns true; a cancelled
 * subscription stays active to the end of its paid period and then expires instead of renewing.
 * Any charge of the subscription names it. An unknown or foreign charge, or one that is no
 * subscription's, is CHARGE_NOT_FOUND; a subscription that already ended is SUBSCRIPTION_EXPIRED.
 */
export const editUserStarSubscription: MethodHandler<'editUserStarSubscription'> = ({ bot, params, world }) => {
  const userId = userIdArg(params);
  const chargeId = requiredStringArg(params, 'telegram_payment_charge_id');
  if (params['is_canceled'] === undefined || params['is_canceled'] === null || params['is_canceled'] === '') {
    throw badRequest('parameter "is_canceled" is required');
  }
  editSubscription(world, bot, userId, chargeId, boolArg(params, 'is_canceled'));
  return true;
};
