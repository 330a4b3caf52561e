import { randomUUID } from 'node:crypto';
import { createTranslator, type Language } from '@wordgame/i18n';
import { packGrant, textOf, type Product } from '../../catalog/index.js';
import { gate } from '../../gate/index.js';
import { type Caller, DomainError } from '../../rpc/index.js';
import type { Insertable } from 'kysely';
import type { OrderRail, OrdersTable } from '../payments.table.js';
import { requireSpender } from '../../ledger/index.js';
import type { PaymentDeps } from '../deps.js';
import { paymentError } from '../errors.js';
import { ProviderError } from '../card/provider/types.js';
import type { CardChannel } from '../../config/index.js';
import { failPendingOrder, insertOpenOrder, orderingAccount, recordEvent, setProviderPayment, type OrderRow } from './orders.store.js';
import { ORDER_LIFETIME_MS, STARS_PROVIDER } from './state.js';
import { requireOnOffer, requireUnderLimit } from './limit.js';

/** The longest invoice link an order keeps (Telegram's are a few dozen characters). */
const MAX_INVOICE_LINK = 2048;

/**
 * Whether a minted link is what createInvoiceLink returns: an https link on t.me (or telegram.me),
 * of bounded length. The link goes to the player's wallet page as the way to pay, so anything else
 * a bot (or whoever answers in its name) sends back is refused rather than shown.
 */
function isInvoiceLink(link: string): boolean {
  if (link.length > MAX_INVOICE_LINK) return false;
  try {
    const url = new URL(link);
    return (
      url.protocol === 'https:' && (url.hostname === 't.me' || url.hostname === 'telegram.me') && url.username === '' && url.port === ''
    );
  } catch {
    return false;
  }
}

/** The one currency of the stars rail (whole stars). */
const STARS_CURRENCY = 'XTR';

/**
 * What a pack grants (catalog's packGrant), in the order row's columns (snapshotted on the order).
 * A subscription's no ads is its pass (to each paid period's end, set by the credit), not a term of
 * days: its order snapshots the pack's chips and hints only, granted again by each renewal.
 */
function packOf(product: Product) {
  const g = packGrant(product.atoms);
  if (product.subscriptionPeriodSeconds !== null)
    return {
      chips: g.chips,
      hints: g.hints,
      no_ads_days: 0n,
      no_ads_forever: false,
      subscription_period: product.subscriptionPeriodSeconds,
    };
  return { chips: g.chips, hints: g.hints, no_ads_days: g.noAdsDays, no_ads_forever: g.noAdsForever };
}

/**
 * The invoice's words in the payer's language: the product's title and description in `language`
 * (catalog textOf); a product without a description gets what the pack grants, worded from the
 * shared catalogue (libs/i18n) in the same language, so the invoice never mixes two.
 */
export function invoiceText(product: Product, language: Language): { title: string; description: string } {
  const text = textOf(product, language);
  if (text.description !== '') return { title: text.title, description: text.description };
  const t = createTranslator(text.locale);
  const g = packGrant(product.atoms);
  const parts: string[] = [];
  if (g.chips > 0n) parts.push(t.plural('wallet.grants_chips', g.chips));
  if (g.hints > 0n) parts.push(t.plural('wallet.grants_hints', g.hints));
  if (g.noAdsForever) parts.push(t.t('wallet.grants_no_ads_forever'));
  else if (g.noAdsDays > 0n) parts.push(t.plural('wallet.grants_no_ads_days', g.noAdsDays));
  return { title: text.title, description: parts.join(', ') || text.title };
}

/**
 * Opens the order with its `created` event (orders.store insertOpenOrder: one statement that locks
 * the account row and refuses a deleted (`caller_required`) or blocked (`account_suspended`)
 * account, so a block takes effect on the order at once, whatever the gateway's session cache still
 * holds). A product with a purchase limit opens it inside a transaction that first locks the account,
 * then counts the player's purchases under the limit's lock (`purchase_limit_reached`, limit.ts
 * requireUnderLimit); a product without one costs that one statement.
 */
async function openOrder(deps: PaymentDeps, values: Insertable<OrdersTable>, product: Product, now: Date): Promise<OrderRow> {
  const opened =
    product.purchaseLimit === null
      ? await insertOpenOrder(deps.db, values, now)
      : await deps.db.transaction().execute(async (trx) => {
          await requireSpender(trx, values.account_id, now);
          await requireUnderLimit(trx, deps, values.account_id, product, now);
          return insertOpenOrder(trx, values, now);
        });
  if (opened.refusal === null) return opened.order;
  if (opened.refusal === 'account_suspended') throw new DomainError('account_suspended', 'the account is suspended');
  throw new DomainError('caller_required', 'the caller account does not exist');
}

/**
 * Refuses, before any order row exists, a price in another currency than the one the rail settles
 * (stars: XTR; card: the shop's): a catalog row the editor never checked (written before the rule,
 * or the shops reconfigured since) answers `currency_not_settled`, not a failure at the provider.
 */
function requireSettled(deps: PaymentDeps, product: Product, rail: OrderRail, priced: string, settles: string): void {
  if (priced === settles) return;
  deps.logger.warn(
    { productId: String(product.id), rail, currency: priced, settles },
    'order refused: the catalog price is in a currency the rail cannot settle; fix the product in the catalog editor',
  );
  throw paymentError('currency_not_settled', `this product is priced in ${priced}, which ${rail} payments here cannot settle`);
}

/**
 * Opens an order for a pack on one rail, after the store-compliance gate: untrusted or frozen
 * contexts are refused (purchase_forbidden); stars only where the gate offers `xtr` (telegram),
 * card only where it offers `provider` and the account has a confirmed e-mail (email_required);
 * a blocked account opens none (`account_suspended`, checked with the insert: openOrder); a price
 * in a currency the rail does not settle opens none either (`currency_not_settled`), nor does a
 * product outside its offer window (`offer_not_available`) or one the player reached the purchase
 * limit of (`purchase_limit_reached`); a stars subscription (a monthly pass) is sold on the stars
 * rail only (`subscription_stars_only`), its invoice carrying the subscription period.
 * Stars: the bot mints the invoice link first (create_invoice, payload = the new order's id), and the
 * order is inserted with its link in one statement: an Ack carrying an error (the bot was reached;
 * the platform refused or the render failed) answers bot_delivery_failed, any other outcome but
 * delivered bot_unavailable, and either way no order is opened. A link whose order was then not
 * opened (the account was blocked meanwhile, the database failed) moves no money: a pre-checkout
 * for it finds no order and is refused. The e-mail is read for the card rail only. Card: the
 * provider creates a single-stage redirect payment keyed by the order id (Idempotence-Key and
 * metadata.order_id); unavailable leaves the order pending without a payment id (a retry with the
 * same key is safe), a rejection fails the order. The invoice (stars) and the payment description
 * (card) are worded in the payer's `language`; the order keeps the English title.
 */
export async function createOrder(
  deps: PaymentDeps,
  caller: Caller,
  productId: bigint,
  rail: string | null,
  language: Language = 'en',
): Promise<OrderRow> {
  if (rail !== 'stars' && rail !== 'card') throw paymentError('invalid_rail', 'rail must be stars or card');
  if (productId <= 0n) throw new DomainError('invalid_product_id', 'product_id must be a positive integer');
  const account = rail === 'card' ? await orderingAccount(deps.db, caller.accountId) : null;
  if (account === undefined) throw new DomainError('caller_required', 'the caller account does not exist');
  const emailConfirmed = account !== null && account.email !== null && account.email_confirmed_at !== null;
  const decision = gate({ ...caller.platform, emailConfirmed });
  if (!decision.trusted || decision.frozen || decision.fundingSegment === null) {
    throw new DomainError(
      'purchase_forbidden',
      decision.frozen ? 'purchases are not available in this app on this device' : 'this session may not buy',
    );
  }
  const method = rail === 'stars' ? 'xtr' : 'provider';
  if (!decision.canPurchaseMethods.includes(method)) throw paymentError('rail_not_offered', `paying by ${rail} is not offered here`);
  if (rail === 'card' && decision.emailRequired)
    throw paymentError('email_required', 'add and confirm an e-mail in your profile to pay by card');

  const [product] = await deps.catalog.products({ includeInactive: false, ids: [productId] });
  if (!product) throw new DomainError('unknown_product', `no active product ${productId}`);
  if (product.subscriptionPeriodSeconds !== null && rail !== 'stars')
    throw paymentError('subscription_stars_only', 'a subscription is paid with stars only: open the pass from the Telegram app');
  const price = product.prices.find((p) => p.method === method);
  if (!price) throw paymentError('not_sold_on_rail', `this product is not sold by ${rail}`);
  const now = deps.now();
  requireOnOffer(deps, product, now);
  const pack = packOf(product);
  const words = invoiceText(product, language);
  const orderRail: OrderRail = rail;
  const base = {
    id: randomUUID(),
    account_id: caller.accountId,
    product_id: product.id,
    title: product.title,
    rail: orderRail,
    segment: decision.fundingSegment,
    amount: price.amount,
    currency: price.currency,
    ...pack,
    created_at: now,
    expires_at: new Date(now.getTime() + ORDER_LIFETIME_MS),
  };

  if (rail === 'stars') {
    requireSettled(deps, product, orderRail, price.currency, STARS_CURRENCY);
    const outcome = await deps.bot.createInvoice({
      title: words.title,
      description: words.description,
      payload: base.id,
      amount: price.amount,
      ...(product.subscriptionPeriodSeconds !== null ? { subscriptionPeriod: BigInt(product.subscriptionPeriodSeconds) } : {}),
    });
    if (outcome.status === 'failed') {
      deps.logger.warn({ orderId: base.id, error: outcome.error.slice(0, 500) }, 'create_invoice failed at the bot');
      throw paymentError('bot_delivery_failed', 'the payment bot could not create the invoice: an unexpected transport or render failure');
    }
    if (outcome.status !== 'delivered' || outcome.result === '') {
      deps.logger.warn({ orderId: base.id, outcome: outcome.status }, 'create_invoice not delivered');
      throw paymentError('bot_unavailable', 'the payment bot is not reachable right now; try again shortly');
    }
    if (!isInvoiceLink(outcome.result)) {
      deps.logger.warn(
        { orderId: base.id, length: outcome.result.length },
        'create_invoice answered something that is not a Telegram link',
      );
      throw paymentError('bot_delivery_failed', 'the payment bot could not create the invoice: an unexpected transport or render failure');
    }
    return openOrder(deps, { ...base, provider: STARS_PROVIDER, shop: null, invoice_link: outcome.result }, product, now);
  }

  const card = deps.card;
  const shop = card?.shops[decision.fundingSegment as CardChannel];
  if (!card || !shop) throw paymentError('rail_not_configured', 'card payments are not configured here');
  requireSettled(deps, product, orderRail, price.currency, shop.currency);
  const order = await openOrder(deps, { ...base, provider: card.provider.name, shop: shop.id }, product, now);
  const email = account?.email ?? null;
  try {
    const receipt =
      card.vatCode !== null && email !== null
        ? {
            email,
            vatCode: card.vatCode,
            items: [{ description: words.title, amountMinor: price.amount, currency: price.currency }],
          }
        : null;
    const payment = await card.provider.createPayment(
      shop,
      {
        amountMinor: price.amount,
        currency: price.currency,
        description: words.title,
        returnUrl: card.returnUrl,
        metadata: { order_id: order.id },
        ...(receipt ? { receipt } : {}),
      },
      order.id,
    );
    return await setProviderPayment(deps.db, order.id, payment.id, payment.confirmationUrl ?? null, receipt !== null);
  } catch (err: unknown) {
    if (!(err instanceof ProviderError)) throw err;
    if (err.failure === 'unavailable') {
      deps.logger.warn({ orderId: order.id, provider: err.provider, status: err.status }, 'create payment: provider unavailable');
      throw paymentError('provider_unavailable', 'the payment provider is not reachable right now; try again shortly');
    }
    deps.logger.warn({ orderId: order.id, provider: err.provider, status: err.status, detail: err.detail }, 'create payment rejected');
    await deps.db.transaction().execute(async (trx) => {
      await failPendingOrder(trx, order.id, 'rejected by the provider');
      await recordEvent(trx, order.id, 'failed', 'create rejected');
    });
    throw paymentError('payment_rejected', 'the payment provider refused this payment');
  }
}
