import type { Translator } from '@wordgame/i18n';
import type { Host } from '../bridge/index.js';
import type { PolicyLinks } from '../launch/policy-links.js';
import { el } from '../ui/dom.js';

/**
 * The settings view (opened by the host's settings button): the operator's privacy policy and terms
 * of service, each opening in a new window so the mini-app stays where it was.
 */
export function settingsView(t: Translator, host: Host, links: PolicyLinks | null): HTMLElement {
  return el(
    'section',
    { id: 'settings', 'aria-labelledby': 'settings-title' },
    el('h2', { id: 'settings-title' }, t.t('wallet.settings.title')),
    policyList(t, host, links, 'settings-links'),
  );
}

/**
 * The two policy links as a list (`id` names it); nothing when the gateway stated none. Inside a
 * host that opens outside pages itself (Telegram: `web_app_open_link`) a click goes through it.
 */
export function policyList(t: Translator, host: Host, links: PolicyLinks | null, id: string): HTMLElement | null {
  if (!links) return null;
  const link = (key: 'privacy' | 'terms', href: string, text: string) => {
    const a = el('a', { href, 'data-policy': key, target: '_blank', rel: 'noopener noreferrer' }, text);
    a.addEventListener('click', (event) => {
      if (host.openLink(href)) event.preventDefault();
    });
    return el('li', {}, a);
  };
  return el(
    'ul',
    { id, class: 'policies', 'aria-label': t.t('wallet.settings.policies_label') },
    link('privacy', links.privacyPolicyUrl, t.t('wallet.settings.privacy_policy')),
    link('terms', links.termsOfServiceUrl, t.t('wallet.settings.terms_of_service')),
  );
}
