import { call } from '../api/client.js';
import type { WalletJson } from '../api/types.js';
import type { App } from '../app.js';
import { el } from '../ui/dom.js';
import { amount, segmentName } from '../ui/words.js';
import { redeemForm } from './redeem-code.js';
import { passesSection } from './passes.js';

/** The segment this context funds and spends first: the host's inside a host, else the web's. */
function ownSegment(kind: string | null): string {
  return kind === 'telegram' || kind === 'vk' ? kind : 'direct';
}

/**
 * What the balance tab shows of a wallet: a segment or benefit origin only when it holds something
 * (chips, a debt, hints, no-ads) or is the context's own (where chips are bought and spent here),
 * so a web player is not shown empty wallets of hosts they never used; the spend order lists only
 * the segments shown.
 */
export function shownWallet(wallet: WalletJson, kind: string | null, now = Date.now()): WalletJson {
  const own = ownSegment(kind);
  const segments = wallet.segments.filter((s) => s.segment === own || s.balance !== '0');
  const benefits = wallet.benefits.filter(
    (b) => b.origin === own || b.hints !== '0' || b.no_ads_forever || (b.no_ads_until !== null && Date.parse(b.no_ads_until) > now),
  );
  const shown = new Set(segments.map((s) => s.segment));
  return { ...wallet, segments, benefits, spend_order: wallet.spend_order.filter((s) => shown.has(s)) };
}

/**
 * The balance tab: each visible segment's chips (a negative balance is a debt, said in words),
 * benefits per origin (no-ads until / forever, hints), the player's monthly passes (next renewal
 * or end, cancel / re-enable), the spend order, a frozen or view-only context explained, and
 * (where the context may receive chips) the "Redeem a code" form.
 */
export async function walletTab(app: App): Promise<HTMLElement> {
  const { t } = app;
  const lang = t.language;
  const [raw, passes] = await Promise.all([call<WalletJson>('/user/wallet', { token: app.session.token }), passesSection(app)]);
  const wallet = shownWallet(raw, app.session.profile.platform.kind);
  const notices = [
    !wallet.trusted && el('p', { class: 'notice', id: 'untrusted-notice' }, t.t('wallet.untrusted')),
    wallet.frozen && el('p', { class: 'notice', id: 'frozen-notice' }, t.t('wallet.frozen')),
  ];
  const segments = el(
    'ul',
    { id: 'segments', class: 'cards' },
    ...wallet.segments.map((s) =>
      el(
        'li',
        { 'data-segment': s.segment, 'data-balance': s.balance, class: s.in_debt ? 'debt' : undefined },
        el('span', { class: 'label' }, segmentName(t, s.segment)),
        el('strong', { class: 'value' }, t.t('wallet.chips_count', { count: amount(s.balance, lang) })),
        s.in_debt &&
          el(
            'span',
            { class: 'detail' },
            t.plural('wallet.debt', s.balance.replace(/^-/, ''), { count: amount(s.balance.replace(/^-/, ''), lang) }),
          ),
      ),
    ),
  );
  const benefits = benefitList(app, wallet);
  const order =
    wallet.spend_order.length > 0
      ? el('ol', { id: 'spend-order' }, ...wallet.spend_order.map((s) => el('li', {}, segmentName(t, s))))
      : el('p', { id: 'spend-order' }, t.t('wallet.spend_none'));
  return el(
    'section',
    { 'aria-labelledby': 'balances-title' },
    ...notices,
    el('h2', { id: 'balances-title' }, t.t('wallet.balances')),
    segments,
    el('h2', {}, t.t('wallet.benefits')),
    benefits,
    passes,
    el('h2', {}, t.t('wallet.spend_order')),
    order,
    // Codes are redeemed where the session may receive chips: trusted and not frozen (the vk iOS context).
    wallet.trusted && !wallet.frozen && redeemForm(app),
  );
}

function benefitList(app: App, wallet: WalletJson): HTMLElement {
  const { t } = app;
  const lang = t.language;
  if (wallet.benefits.length === 0) return el('p', { id: 'benefits' }, t.t('wallet.benefits_none'));
  return el(
    'ul',
    { id: 'benefits', class: 'cards' },
    ...wallet.benefits.map((b) =>
      el(
        'li',
        { 'data-origin': b.origin },
        el('span', { class: 'label' }, t.t('wallet.benefits_of', { origin: segmentName(t, b.origin) })),
        el('span', {}, noAds(app, b.no_ads_forever, b.no_ads_until)),
        el(
          'span',
          {},
          b.in_debt
            ? t.t('wallet.hints_debt', { count: amount(b.hints.replace(/^-/, ''), lang) })
            : t.t('wallet.hints_count', { count: amount(b.hints, lang) }),
        ),
      ),
    ),
  );
}

function noAds(app: App, forever: boolean, until: string | null): string {
  if (forever) return app.t.t('wallet.no_ads_forever');
  if (until && Date.parse(until) > Date.now()) {
    const date = new Intl.DateTimeFormat(app.t.language, { dateStyle: 'long', timeStyle: 'short' }).format(new Date(until));
    return app.t.t('wallet.no_ads_until', { date });
  }
  return app.t.t('wallet.no_ads_none');
}
