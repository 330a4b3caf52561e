import type { Translator } from '@wordgame/i18n';
import { call } from '../api/client.js';
import type { CodeRedeemedJson } from '../api/types.js';
import type { App } from '../app.js';
import { el, replace } from '../ui/dom.js';
import { amount, errorText } from '../ui/words.js';

/** Longest text the field takes (a code is at most 32 characters, plus the dashes people type). */
const CODE_INPUT_MAX = 64;

/** What the last redemption granted, said once on the reloaded balance tab. */
let lastRedeemed: string | null = null;

/** The player's words for what a code granted, e.g. "Code redeemed: 100 chips, 2 hints." */
export function redeemedText(t: Translator, r: CodeRedeemedJson): string {
  const parts = [
    r.chips !== '0' && t.t('wallet.redeem_chips', { count: amount(r.chips, t.language) }),
    r.hints !== '0' && t.t('wallet.redeem_hints', { count: amount(r.hints, t.language) }),
    r.no_ads_days !== '0' && t.t('wallet.redeem_no_ads', { count: amount(r.no_ads_days, t.language) }),
  ].filter((p): p is string => typeof p === 'string');
  return t.t('wallet.redeem_done', { what: parts.join(', ') });
}

/**
 * The "Redeem a code" form of the balance tab: POST /user/codes/redeem, then the tab reloads with
 * the new balance and says what the code granted; a refusal (not redeemable, already redeemed, too
 * many attempts) is said in words under the field.
 */
export function redeemForm(app: App): HTMLElement {
  const { t } = app;
  const done = lastRedeemed;
  lastRedeemed = null;
  const message = el(
    'p',
    { id: 'redeem-message', role: 'status', 'aria-live': 'polite', 'data-kind': done === null ? undefined : 'ok' },
    done ?? '',
  );
  const input = el('input', {
    id: 'redeem-code',
    name: 'code',
    type: 'text',
    maxlength: String(CODE_INPUT_MAX),
    autocomplete: 'off',
    autocapitalize: 'characters',
    spellcheck: 'false',
    required: true,
  });
  const button = el('button', { type: 'submit', id: 'redeem-submit' }, t.t('wallet.redeem_button'));
  const form = el(
    'form',
    { id: 'redeem-form', class: 'row' },
    el('label', { for: 'redeem-code' }, t.t('wallet.redeem_label')),
    input,
    button,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (button.disabled) return;
    button.disabled = true;
    call<CodeRedeemedJson>('/user/codes/redeem', { method: 'POST', token: app.session.token, body: { code: input.value } })
      .then((r) => {
        lastRedeemed = redeemedText(t, r);
        app.show('wallet');
      })
      .catch((err: unknown) => {
        message.dataset['kind'] = 'error';
        replace(message, errorText(t, err));
      })
      .finally(() => {
        button.disabled = false;
      });
  });
  return el('div', { id: 'redeem' }, el('h2', {}, t.t('wallet.redeem_title')), form, message);
}
