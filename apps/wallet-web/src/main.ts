import { createTranslator } from '@wordgame/i18n';
import { setCallLanguage } from './api/client.js';
import { connectHost } from './bridge/index.js';
import { detectLaunch } from './launch/context.js';
import { chooseLanguage } from './launch/language.js';
import { policyLinks } from './launch/policy-links.js';
import { pendingOrder, resumeSession, type Session } from './session.js';
import { startShell } from './shell.js';
import { el, replace } from './ui/dom.js';
import { errorText, showLanguage } from './ui/words.js';
import { signInView } from './views/sign-in.js';

/**
 * Boots the page: detects the launch context and language, connects to the host's bridge (Telegram
 * or VK, when the page runs inside one), then shows the wallet (`?order=` or the card order
 * remembered before the checkout is followed), signed in from the launch data, the stored web
 * session, or the form. (The e-mail confirmation page is the gateway's, served at the mailed link
 * without JavaScript.)
 */
function boot(): void {
  const root = document.getElementById('app');
  if (!root) return;
  const launch = detectLaunch({
    search: window.location.search,
    hash: window.location.hash,
    telegramInitData: window.Telegram?.WebApp?.initData,
  });
  const host = connectHost(launch, window.location.hash, document.documentElement);
  const links = policyLinks(document.documentElement);
  const t = createTranslator(chooseLanguage(launch, navigator.languages));
  showLanguage(t);
  setCallLanguage(t.language);
  const query = new URLSearchParams(window.location.search);
  const orderId = query.get('order') ?? pendingOrder();
  const start = (session: Session) => startShell(root, t, session, orderId, host, links);
  replace(root, el('p', { role: 'status' }, t.t('wallet.loading')));
  resumeSession(launch)
    .then((session) =>
      session ? start(session) : replace(root, el('header', {}, el('h1', {}, t.t('wallet.title'))), signInView(t, start)),
    )
    .catch((err: unknown) =>
      replace(
        root,
        el('header', {}, el('h1', {}, t.t('wallet.title'))),
        el('p', { role: 'alert', class: 'notice', id: 'fatal' }, errorText(t, err)),
      ),
    );
}

boot();
