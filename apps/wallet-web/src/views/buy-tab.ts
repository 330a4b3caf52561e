import { ApiError, call } from '../api/client.js';
import type { CatalogJson, OrderJson, PriceJson, ProductJson, ProfileJson, PurchaseJson } from '../api/types.js';
import type { App } from '../app.js';
import { rememberPendingOrder } from '../session.js';
import { el, replace } from '../ui/dom.js';
import { amount, errorText, money, offerEndsText } from '../ui/words.js';

/** A fresh idempotency key (random, 128 bits); works outside secure contexts too. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The buy tab: the catalog as the context may see it, each price a button. Chips are spent with an
 * idempotency key that belongs to the button until the purchase is answered (a second click while
 * one is in flight is ignored, and a resent request replays instead of charging again); a card pack
 * goes to the provider's checkout, a stars pack to its invoice link, and the order is followed.
 */
export async function buyTab(app: App): Promise<HTMLElement> {
  const { t } = app;
  const catalog = await call<CatalogJson>('/user/wallet/catalog', { token: app.session.token });
  const unconfirmed = catalog.email_required
    ? unconfirmedEmail(await call<ProfileJson>('/user/profile', { token: app.session.token }))
    : null;
  const message = el('p', { id: 'buy-message', role: 'status', 'aria-live': 'polite' });
  const notices = [
    !catalog.trusted && el('p', { class: 'notice' }, t.t('wallet.untrusted')),
    catalog.frozen && el('p', { class: 'notice', id: 'frozen-notice' }, t.t('wallet.frozen')),
    catalog.email_required &&
      el(
        'p',
        { class: 'notice', id: 'email-notice', 'data-email': unconfirmed === null ? 'none' : 'unconfirmed' },
        unconfirmed === null ? t.t('wallet.email_notice') : t.t('wallet.email_confirm_notice', { email: unconfirmed }),
        ' ',
        linkButton(t.t('wallet.email_notice_link'), () => app.show('profile')),
      ),
  ];
  const products =
    catalog.products.length > 0
      ? el(
          'ul',
          { id: 'products', class: 'cards' },
          ...catalog.products.map((p) => el('li', { 'data-product-id': p.product_id }, productCard(app, catalog, p, message))),
        )
      : el('p', { id: 'products-empty' }, t.t('wallet.catalog_empty'));
  return el(
    'section',
    { 'aria-labelledby': 'catalog-title' },
    ...notices,
    el('h2', { id: 'catalog-title' }, t.t('wallet.catalog')),
    products,
    message,
  );
}

/**
 * The address waiting for confirmation, if any: a pending change, or an address that was never
 * confirmed. The buy tab then asks to confirm it, not to add one (the player already did).
 */
export function unconfirmedEmail(profile: Pick<ProfileJson, 'email' | 'email_confirmed' | 'pending_email'>): string | null {
  if (profile.pending_email) return profile.pending_email;
  if (profile.email && !profile.email_confirmed) return profile.email;
  return null;
}

function productCard(app: App, catalog: CatalogJson, product: ProductJson, message: HTMLElement): HTMLElement {
  const { t } = app;
  const grants = product.atoms.map((a) => grantText(app, a.kind, a.quantity)).filter((g) => g !== '');
  return el(
    'article',
    { 'aria-label': product.title },
    el('h3', {}, product.title),
    isPass(product) && el('p', { class: 'pass-tag', 'data-pass': 'monthly' }, t.t('wallet.pass_tag')),
    product.description !== '' && el('p', { class: 'description' }, product.description),
    grants.length > 0 && el('p', { class: 'detail' }, grants.join(' · ')),
    product.available_until_unix !== null &&
      el('p', { class: 'offer-ends' }, offerEndsText(t, product.available_until_unix - catalog.server_now_unix)),
    el('div', { class: 'actions' }, ...product.prices.map((price) => priceButton(app, catalog, product, price, message))),
  );
  function grantText(a: App, kind: string, quantity: string): string {
    if (kind === 'chips') return t.plural('wallet.grants_chips', quantity, { count: amount(quantity, a.t.language) });
    if (kind === 'hints') return t.plural('wallet.grants_hints', quantity, { count: amount(quantity, a.t.language) });
    if (kind === 'no_ads_days') return t.plural('wallet.grants_no_ads_days', quantity, { count: amount(quantity, a.t.language) });
    if (kind === 'no_ads_forever') return t.t('wallet.grants_no_ads_forever');
    return '';
  }
}

/** Whether the product is a monthly pass (a stars subscription: its benefits last one paid period, renewed by Telegram). */
export function isPass(product: Pick<ProductJson, 'subscription_period_seconds'>): boolean {
  const period = product.subscription_period_seconds;
  return period !== undefined && period !== null && String(period) !== '0';
}

function priceButton(app: App, catalog: CatalogJson, product: ProductJson, price: PriceJson, message: HTMLElement): HTMLElement {
  const { t } = app;
  const lang = t.language;
  if (price.method === 'chips') {
    const button = el(
      'button',
      { type: 'button', 'data-method': 'chips' },
      t.plural('wallet.price_chips', price.amount, { count: amount(price.amount, lang) }),
    );
    let key = newIdempotencyKey();
    button.addEventListener('click', () => {
      if (button.disabled) return;
      button.disabled = true;
      call<PurchaseJson>('/user/wallet', {
        method: 'POST',
        token: app.session.token,
        body: { product_id: product.product_id },
        headers: { 'idempotency-key': key },
      })
        .then((purchase) => {
          key = newIdempotencyKey();
          say(message, 'ok', t.t('wallet.bought', { title: product.title, price: amount(purchase.price, lang) }));
        })
        .catch((err: unknown) => {
          // An answer settles the key; no answer keeps it, so trying again cannot charge twice.
          if (err instanceof ApiError && err.status !== 0) key = newIdempotencyKey();
          say(message, 'error', errorText(t, err));
        })
        .finally(() => {
          button.disabled = false;
        });
    });
    return button;
  }
  const rail = price.method === 'xtr' ? 'stars' : 'card';
  const label =
    rail === 'stars'
      ? t.plural('wallet.price_stars', price.amount, { count: amount(price.amount, lang) })
      : t.t('wallet.price_card', { amount: money(price.amount, price.currency, lang) });
  const blocked = rail === 'card' && catalog.email_required;
  const button = el(
    'button',
    { type: 'button', 'data-method': rail, disabled: blocked, 'aria-describedby': blocked ? 'email-notice' : undefined },
    label,
  );
  button.addEventListener('click', () => {
    if (button.disabled) return;
    button.disabled = true;
    call<OrderJson>('/user/wallet/orders', { method: 'POST', token: app.session.token, body: { product_id: product.product_id, rail } })
      .then((order) => {
        if (rail === 'card' && order.confirmation_url) {
          rememberPendingOrder(order.order_id);
          say(message, 'ok', t.t('wallet.to_checkout'));
          window.location.assign(order.confirmation_url);
          return;
        }
        app.follow(order.order_id, order.invoice_link);
        button.disabled = false;
      })
      .catch((err: unknown) => {
        say(message, 'error', errorText(t, err));
        button.disabled = false;
      });
  });
  return button;
}

function say(region: HTMLElement, kind: 'ok' | 'error', text: string): void {
  region.dataset['kind'] = kind;
  replace(region, text);
}

function linkButton(text: string, onClick: () => void): HTMLElement {
  const button = el('button', { type: 'button', class: 'link' }, text);
  button.addEventListener('click', onClick);
  return button;
}
