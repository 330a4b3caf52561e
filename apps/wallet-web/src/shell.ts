import type { Translator } from '@wordgame/i18n';
import type { App, TabId } from './app.js';
import type { OrderJson } from './api/types.js';
import type { Host, InvoiceStatus } from './bridge/index.js';
import type { PolicyLinks } from './launch/policy-links.js';
import { trackOrder } from './orders/progress.js';
import { pendingOrder, rememberPendingOrder, signOut, type Session } from './session.js';
import { el, replace } from './ui/dom.js';
import { contextName, errorText } from './ui/words.js';
import { buyTab } from './views/buy-tab.js';
import { historyTab } from './views/history-tab.js';
import { profileTab } from './views/profile-tab.js';
import { policyList, settingsView } from './views/settings-view.js';
import { walletTab } from './views/wallet-tab.js';

const TABS: readonly TabId[] = ['wallet', 'buy', 'history', 'profile'];
const RENDER: Readonly<Record<TabId, (app: App) => Promise<HTMLElement>>> = {
  wallet: walletTab,
  buy: buyTab,
  history: historyTab,
  profile: profileTab,
};

/**
 * The signed-in page: a header naming the context, four tabs (balance, buy, history, profile; arrow keys
 * move between them), the order status line, and the chosen tab's panel. `orderId` (the card order
 * the provider's checkout returned from) is followed from the start. Inside a host (`host`) its
 * settings button opens the settings view over the tabs, its back button closes it; elsewhere the
 * policy links are at the foot of the page.
 */
export function startShell(
  root: HTMLElement,
  t: Translator,
  session: Session,
  orderId: string | null,
  host: Host,
  links: PolicyLinks | null,
): void {
  const kind = session.profile.platform.kind;
  const panel = el('div', { id: 'panel', role: 'tabpanel', tabindex: '0' });
  const status = el('div', { id: 'order-status', role: 'status', 'aria-live': 'polite' });
  const buttons = new Map<TabId, HTMLButtonElement>();
  let current: TabId = 'wallet';
  let stopTracking: (() => void) | undefined;
  let generation = 0;

  const app: App = {
    t,
    session,
    show(tab) {
      current = tab;
      for (const [id, button] of buttons) {
        button.setAttribute('aria-selected', String(id === tab));
        button.tabIndex = id === tab ? 0 : -1;
      }
      panel.setAttribute('aria-labelledby', `tab-${tab}`);
      panel.dataset['tab'] = tab;
      panel.setAttribute('aria-busy', 'true');
      const mine = ++generation;
      RENDER[tab](app)
        .then((content) => mine === generation && replace(panel, content))
        .catch((err: unknown) => mine === generation && replace(panel, el('p', { role: 'alert', class: 'notice' }, errorText(t, err))))
        .finally(() => mine === generation && panel.removeAttribute('aria-busy'));
    },
    follow(id, invoiceLink) {
      stopTracking?.();
      const extra = invoiceLink
        ? openInvoice(t, host, invoiceLink, (status) => {
            if (status === 'cancelled' && current !== 'buy') app.show('buy');
          })
        : undefined;
      stopTracking = trackOrder(
        t,
        session.token,
        id,
        status,
        (order: OrderJson | null) => {
          if (pendingOrder() === id) rememberPendingOrder(null);
          if (order?.state === 'paid' && current !== 'profile') app.show(current);
        },
        extra,
      );
    },
  };

  const tablist = el('div', { role: 'tablist', 'aria-label': t.t('wallet.tabs_label'), id: 'tabs' });
  for (const tab of TABS) {
    const button = el('button', { type: 'button', role: 'tab', id: `tab-${tab}`, 'aria-controls': 'panel' }, t.t(`wallet.tab_${tab}`));
    button.addEventListener('click', () => app.show(tab));
    button.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (step === 0) return;
      const next = TABS[(TABS.indexOf(tab) + step + TABS.length) % TABS.length] ?? 'wallet';
      app.show(next);
      buttons.get(next)?.focus();
    });
    buttons.set(tab, button);
    tablist.append(button);
  }
  const signOutButton =
    kind === 'telegram' || kind === 'vk'
      ? undefined
      : el('button', { type: 'button', id: 'sign-out', class: 'link' }, t.t('wallet.sign_out'));
  signOutButton?.addEventListener('click', () => void signOut(session).then(() => window.location.assign('/wallet')));
  const header = el(
    'header',
    {},
    el('h1', {}, t.t('wallet.title')),
    el(
      'p',
      { id: 'context', 'data-kind': kind ?? 'none', 'data-subtype': session.profile.platform.subtype ?? '' },
      contextName(t, kind),
      session.profile.display_name && ` · ${session.profile.display_name}`,
    ),
    signOutButton,
  );
  const subview = el('div', { id: 'subview', hidden: true });
  const closeSubview = () => {
    subview.hidden = true;
    replace(subview);
    tablist.hidden = false;
    panel.hidden = false;
    host.setBack(null);
  };
  const hasSettings = host.offerSettings(() => {
    replace(subview, settingsView(t, host, links));
    subview.hidden = false;
    tablist.hidden = true;
    panel.hidden = true;
    host.setBack(closeSubview);
  });
  const footer = hasSettings ? undefined : el('footer', {}, policyList(t, host, links, 'policies'));
  replace(root, header, tablist, status, panel, subview, footer);
  app.show('wallet');
  if (orderId) app.follow(orderId);
}

/**
 * The stars invoice: opened in the host's payment sheet when it has one, its reported outcome shown
 * at once (`#invoice-outcome`, `data-status`; `onClosed` runs too) while the order's own state, still
 * polled, stays the truth; else a link to it.
 */
function openInvoice(t: Translator, host: Host, link: string, onClosed: (status: InvoiceStatus) => void): Node {
  const outcome = el('span', { id: 'invoice-outcome', 'data-status': 'open' }, t.t('wallet.invoice.opened'));
  const opened = host.openInvoice(link, (status) => {
    outcome.dataset['status'] = status;
    replace(outcome, t.t(`wallet.invoice.${status}`));
    onClosed(status);
  });
  if (opened) return outcome;
  return el('a', { id: 'invoice-link', href: link, target: '_blank', rel: 'noopener noreferrer' }, t.t('wallet.open_invoice'));
}
