import { call } from '../api/client.js';
import type { SubscriptionJson } from '../api/types.js';
import type { App } from '../app.js';
import { el, replace } from '../ui/dom.js';
import { errorText } from '../ui/words.js';

/** How long after its end an expired pass is still shown on the balance tab. */
const SHOW_ENDED_MS = 30 * 86_400_000;

/** The passes the balance tab shows: every active or cancelled one, and one that ended in the last 30 days. */
export function shownPasses(passes: readonly SubscriptionJson[], now = Date.now()): SubscriptionJson[] {
  return passes.filter((p) => p.state !== 'expired' || (p.paid_until !== null && Date.parse(p.paid_until) > now - SHOW_ENDED_MS));
}

/**
 * The balance tab's monthly passes: each with its state in words (renews on / active until / ended
 * on) and a cancel or re-enable button. A press asks the gateway, which has the bot change the
 * platform's subscription; the card is redrawn from the answer, or the error is said under it.
 * Nothing (null) when the player has no pass to show, or when the passes cannot be read now (the
 * balances are still shown; the next visit of the tab asks again).
 */
export async function passesSection(app: App): Promise<HTMLElement | null> {
  let subscriptions: SubscriptionJson[];
  try {
    ({ subscriptions } = await call<{ subscriptions: SubscriptionJson[] }>('/user/subscriptions', { token: app.session.token }));
  } catch {
    return null;
  }
  const shown = shownPasses(subscriptions);
  if (shown.length === 0) return null;
  return el(
    'section',
    { id: 'passes', 'aria-labelledby': 'passes-title' },
    el('h2', { id: 'passes-title' }, app.t.t('wallet.pass_title')),
    el('ul', { class: 'cards' }, ...shown.map((p) => passCard(app, p))),
  );
}

function passCard(app: App, pass: SubscriptionJson): HTMLElement {
  const item = el('li', {});
  draw(app, item, pass);
  return item;
}

function draw(app: App, item: HTMLElement, pass: SubscriptionJson): void {
  const { t } = app;
  const date = pass.paid_until ? new Intl.DateTimeFormat(t.language, { dateStyle: 'long' }).format(new Date(pass.paid_until)) : '';
  const status =
    pass.state === 'active'
      ? t.t('wallet.pass_active', { date })
      : pass.state === 'cancelled'
        ? t.t('wallet.pass_cancelled', { date })
        : t.t('wallet.pass_expired', { date });
  const message = el('p', { class: 'pass-message', role: 'status', 'aria-live': 'polite' });
  const action =
    pass.state === 'expired'
      ? null
      : el(
          'button',
          { type: 'button', 'data-action': pass.state === 'active' ? 'cancel' : 'enable' },
          t.t(pass.state === 'active' ? 'wallet.pass_cancel' : 'wallet.pass_enable'),
        );
  action?.addEventListener('click', () => {
    if (action.disabled) return;
    action.disabled = true;
    const verb = pass.state === 'active' ? 'cancel' : 'enable';
    call<SubscriptionJson>(`/user/subscriptions/${encodeURIComponent(pass.id)}/${verb}`, { method: 'POST', token: app.session.token })
      .then((next) => draw(app, item, next))
      .catch((err: unknown) => {
        message.dataset['kind'] = 'error';
        replace(message, errorText(t, err));
        action.disabled = false;
      });
  });
  item.dataset['subscriptionId'] = pass.id;
  item.dataset['state'] = pass.state;
  replace(item, el('span', { class: 'label' }, pass.title), el('span', { class: 'pass-status' }, status), action, message);
}
