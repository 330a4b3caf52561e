import type { Translator } from '@wordgame/i18n';
import { call } from '../api/client.js';
import { el, replace } from '../ui/dom.js';
import { errorText } from '../ui/words.js';

/**
 * The page a mailed confirmation link lands on (`/wallet/confirm?token=…`): it confirms the e-mail
 * with a POST (a mail scanner that only fetches the link consumes nothing) and says confirmed or why not.
 */
export function confirmPage(t: Translator, token: string | null): HTMLElement {
  const result = el('p', { id: 'confirm-result', role: 'status', 'aria-live': 'polite' }, t.t('wallet.confirm_working'));
  const settle = (outcome: string, text: string) => {
    result.dataset['outcome'] = outcome;
    replace(result, text);
  };
  if (!token) settle('error', t.t('wallet.confirm_missing'));
  else
    call<{ email: string }>('/user/profile/confirm-email', { method: 'POST', body: { token } })
      .then((r) => settle('confirmed', t.t('wallet.confirm_ok', { email: r.email })))
      .catch((err: unknown) => settle('error', errorText(t, err)));
  return el(
    'section',
    { 'aria-labelledby': 'confirm-title' },
    el('h2', { id: 'confirm-title' }, t.t('wallet.confirm_title')),
    result,
    el('p', {}, el('a', { href: '/wallet' }, t.t('wallet.back_to_wallet'))),
  );
}
